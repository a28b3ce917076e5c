type Env = Readonly<Record<string, string | undefined>>;

/**
 * Which requests may reach the API and /mcp, against DNS rebinding: a page on attacker.example
 * whose name is re-pointed at 127.0.0.1 talks to a local gateway as a "same-origin" site, but
 * its requests still say `Host: attacker.example` and, when they write, `Origin: http://attacker.example`.
 * (Names follow the MCP SDK's DNS-rebinding options: allowedHosts, allowedOrigins.)
 */
export interface OriginPolicy {
  /**
   * Host header values the gateway answers to: `name` (any port) or `name:port` (exactly).
   * Undefined: no list applies and any Host is served (deployments behind their own routing).
   */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host[:port]`) allowed to call; a request carrying any other Origin is refused. */
  allowedOrigins: readonly string[];
}

export class OriginPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginPolicyError';
  }
}

/** `name` or `[v6]`, then an optional `:port`; lower-cased first. Anything else is not a Host. */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/;
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether the value is a host name or address with an optional port (`exec.internal`, `10.0.0.5:8788`, `[::1]:8788`). */
export function isHostEntry(value: string): boolean {
  return parseHost(value) !== undefined;
}

function parseHost(value: string): { name: string; port?: string } | undefined {
  const match = HOST.exec(value.trim().toLowerCase());
  return match ? { name: match[1], port: match[2] } : undefined;
}

/** `https://App.example:443/` → `https://app.example`; undefined for what is not an http(s) origin (`null`, `*`, `file:`). */
function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value.trim()).origin;
    return /^https?:\/\//.test(origin) ? origin : undefined;
  } catch {
    return undefined;
  }
}

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** TOOLGATE_ALLOWED_HOSTS and TOOLGATE_ALLOWED_ORIGINS (comma-separated); throws OriginPolicyError naming a bad entry. */
export function originPolicyFromEnv(env: Env): OriginPolicy {
  const hosts = list(env.TOOLGATE_ALLOWED_HOSTS);
  const bad = hosts.find((h) => !parseHost(h));
  if (bad) throw new OriginPolicyError(`TOOLGATE_ALLOWED_HOSTS: "${bad}" is not a host name or host:port (for IPv6 write [::1]:8787)`);
  const origins = list(env.TOOLGATE_ALLOWED_ORIGINS);
  const notOrigin = origins.find((o) => !originOf(o));
  // No wildcard and no "null" (any sandboxed page or file sends that): each allowed site by name.
  if (notOrigin) throw new OriginPolicyError(`TOOLGATE_ALLOWED_ORIGINS: "${notOrigin}" is not an http(s) origin such as https://app.example.com; list each allowed origin`);
  return { allowedHosts: hosts.length > 0 ? hosts : undefined, allowedOrigins: origins.map((o) => originOf(o)!) };
}

export function isLoopbackHost(host: string): boolean {
  return [...LOOPBACK_NAMES, '::1'].includes(host.toLowerCase());
}

/** What a server bound to a loopback address answers to by default: its loopback names with its port (on 80, clients leave it out). */
export function loopbackHosts(port: number): string[] {
  return LOOPBACK_NAMES.flatMap((name) => (port === 80 ? [`${name}:80`, name] : [`${name}:${port}`]));
}

/**
 * For a server that knows where it listens (`toolgate serve`, Deno): the environment's policy,
 * and when that names no hosts and the address is loopback, the loopback names with its port.
 */
export function localOriginPolicy(env: Env, host: string, port: number): OriginPolicy {
  const policy = originPolicyFromEnv(env);
  return policy.allowedHosts === undefined && isLoopbackHost(host) ? { ...policy, allowedHosts: loopbackHosts(port) } : policy;
}

/** Whether a Host header value is one of `allowed` (`name`: any port, `name:port`: exactly). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const sent = parseHost(host);
  if (!sent) return false;
  return allowed.some((entry) => {
    const want = parseHost(entry);
    return want !== undefined && want.name === sent.name && (want.port === undefined || want.port === sent.port);
  });
}

/** Whether a page of this Origin may call the gateway (the one list the guard and CORS both read). */
export function originAllowed(policy: OriginPolicy, origin: string): boolean {
  return policy.allowedOrigins.includes(originOf(origin) ?? '');
}

/**
 * Whether `origin` is the gateway's own: the request's scheme with its Host, once that Host has
 * passed the host list. A browser sends the Host of the URL it calls, so such a request comes
 * from a page of this very origin (and a local client that says so, as MCP's DNS-rebinding
 * check does). Never without a host list: any name is served then, and a rebinding page's
 * Origin would match its own Host.
 */
function isOwnOrigin(policy: OriginPolicy, headers: { host?: string; origin?: string; scheme?: string }): boolean {
  if (!policy.allowedHosts || headers.host === undefined || headers.origin === undefined || headers.scheme === undefined) return false;
  const own = originOf(`${headers.scheme}//${headers.host}`);
  return own !== undefined && own === originOf(headers.origin);
}

/**
 * Why the request is refused (a sentence for the 403), or undefined when it may proceed.
 * `scheme` is the request URL's (`http:` or `https:`): with the Host, the gateway's own origin.
 */
export function originProblem(policy: OriginPolicy, headers: { host?: string; origin?: string; scheme?: string }): string | undefined {
  if (policy.allowedHosts) {
    if (headers.host === undefined) return 'the request has no Host header; send the name of this gateway as Host';
    if (!hostAllowed(headers.host, policy.allowedHosts)) {
      return `Host "${headers.host.slice(0, 100)}" is not a name this gateway answers to (a DNS-rebinding page sends its own name); call it by an allowed name, or add this one to TOOLGATE_ALLOWED_HOSTS`;
    }
  }
  if (headers.origin !== undefined && !originAllowed(policy, headers.origin) && !isOwnOrigin(policy, headers)) {
    return `Origin "${headers.origin.slice(0, 100)}" may not call this gateway (requests from web pages are refused unless their origin is listed); add it to TOOLGATE_ALLOWED_ORIGINS to allow it`;
  }
  return undefined;
}
