import { EgressPolicy, EgressRefusedError } from './policy.ts';

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Resolves a host name to every address it has (both families). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/**
 * How a runtime sends a request the policy let through. `checkAddresses`, when given, must see
 * every address the host resolves to before anything is sent (it throws EgressRefusedError).
 */
export interface EgressTransport {
  /** What it can check: the URL only (Workers), the resolved addresses (Deno), or those pinned for the connection (Node). */
  readonly checks: 'url' | 'resolved' | 'pinned';
  fetch(url: URL, init: RequestInit, checkAddresses?: (addresses: string[]) => void): Promise<Response>;
}

/** Workers: no DNS API, so the URL is all that is checked; the runtime's fetch does the rest. */
export const urlOnlyTransport: EgressTransport = {
  checks: 'url',
  fetch: (url, init) => fetch(url, init),
};

/**
 * Resolve, check, then fetch by name (Deno: Deno.resolveDns). The connection resolves the name
 * again, so a name that changes its answer in between (DNS rebinding) is not caught: only Node's
 * transport pins the checked address.
 */
export function resolvingTransport(resolve: ResolveHost, send: Fetch = (input, init) => fetch(input, init)): EgressTransport {
  return {
    checks: 'resolved',
    async fetch(url, init, checkAddresses) {
      if (checkAddresses) checkAddresses(await resolve(url.hostname.replace(/\.$/, '')));
      return send(url, init);
    },
  };
}

/**
 * The fetch tenant executors use: refuses what the policy refuses before anything is sent, and
 * never follows a redirect (a 3xx is the answer), so an allowed host cannot bounce a request to
 * a refused one.
 */
export function egressFetch(policy: EgressPolicy, transport: EgressTransport = urlOnlyTransport): Fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const verdict = policy.checkUrl(url);
    const checkAddresses = verdict === 'resolve' ? (addresses: string[]) => policy.checkAddresses(url, addresses) : undefined;
    const fromRequest = input instanceof Request ? await requestInit(input) : {};
    return transport.fetch(url, { ...fromRequest, ...init, redirect: 'manual' }, checkAddresses);
  };
}

/** A Request's method, headers, body (read whole: executors send small bodies) and signal, as init. */
async function requestInit(request: Request): Promise<RequestInit> {
  const body = request.body === null ? undefined : await request.arrayBuffer();
  return { method: request.method, headers: request.headers, body, signal: request.signal };
}

/** The refusal behind a failed fetch, if the egress policy was the reason (runtimes may wrap it in a TypeError's cause). */
export function egressRefusal(error: unknown): EgressRefusedError | undefined {
  if (error instanceof EgressRefusedError) return error;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof EgressRefusedError ? cause : undefined;
}
