type Env = Readonly<Record<string, string | undefined>>;

export class PublicUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublicUrlError';
  }
}

/**
 * TOOLGATE_PUBLIC_URL: the origin clients reach the gateway at (`https://tools.example.com`),
 * pinned by the operator. Behind a proxy the Host header is whatever the client or proxy sent,
 * so URLs the gateway advertises (protected-resource metadata) come from here when it is set.
 * Undefined when unset; throws PublicUrlError for a value that is not a bare http(s) origin.
 */
export function publicOriginFromEnv(env: Env): string | undefined {
  const value = env.TOOLGATE_PUBLIC_URL?.trim();
  if (!value) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new PublicUrlError(`TOOLGATE_PUBLIC_URL: "${value.slice(0, 200)}" is not an origin such as https://tools.example.com (no path, query or user name)`);
  }
  return url.origin;
}

/** Where this request's client reached the gateway: the pinned public origin, or else the request's own. */
export function publicOrigin(pinned: string | undefined, requestUrl: string): string {
  return pinned ?? new URL(requestUrl).origin;
}
