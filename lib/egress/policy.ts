import { EGRESS_ALLOW_VARIABLE, EgressAllowlist } from './allowlist.ts';
import { internalAddressKind } from './internal-addresses.ts';
import { isInternalHostName } from './internal-names.ts';
import { parseIp } from './ip.ts';

/** An executor was about to reach a destination the egress policy refuses; nothing was sent. */
export class EgressRefusedError extends Error {
  readonly host: string;
  constructor(host: string, message: string) {
    super(message);
    this.name = 'EgressRefusedError';
    this.host = host;
  }
}

/** What is left to check of a URL the policy let through: nothing, or the addresses its host name resolves to. */
export type UrlVerdict = 'checked' | 'resolve';

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The way to allow `host`, for messages: the exact host:port, which admits nothing else. */
function allowHint(host: string, port: number): string {
  return `the operator can allow it by adding "${host}:${port}" to ${EGRESS_ALLOW_VARIABLE}`;
}

/**
 * Where tenant executors (http, mcp, the exec-server) may connect: anywhere public, and internal
 * destinations (loopback, private, link-local, CGNAT, multicast/reserved, cloud metadata, local
 * host names) only where the operator's allowlist names them. A URL is checked as written (IP
 * literals in every spelling the URL parser accepts are normalised by it), then, where the
 * runtime can resolve names, every address its host resolves to.
 */
export class EgressPolicy {
  readonly allowlist: EgressAllowlist;

  constructor(allowlist: EgressAllowlist = EgressAllowlist.none) {
    this.allowlist = allowlist;
  }

  /** The policy from TOOLGATE_EGRESS_ALLOW; throws EgressAllowError for an entry it cannot read. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): EgressPolicy {
    return new EgressPolicy(EgressAllowlist.parse(env[EGRESS_ALLOW_VARIABLE]));
  }

  /** Checks a URL before anything is sent: throws EgressRefusedError, or says what is left to check. */
  checkUrl(url: URL): UrlVerdict {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressRefusedError(url.host, `toolgate connects only to http(s) URLs, not ${url.protocol}`);
    }
    const port = portOf(url);
    const literal = parseIp(url.hostname);
    if (literal) {
      if (this.allowlist.admitsAddress(literal, port)) return 'checked';
      const kind = internalAddressKind(literal);
      if (kind) throw new EgressRefusedError(url.hostname, `toolgate does not connect to ${url.hostname} (${kind}); ${allowHint(url.hostname, port)}`);
      return 'checked';
    }
    if (this.allowlist.admitsName(url.hostname, port)) return 'checked';
    if (isInternalHostName(url.hostname)) {
      throw new EgressRefusedError(url.hostname, `toolgate does not connect to ${url.hostname} (a local or internal host name); ${allowHint(url.hostname, port)}`);
    }
    return 'resolve';
  }

  /** Checks the addresses `url`'s host name resolved to: every one must be public or allowed. */
  checkAddresses(url: URL, addresses: readonly string[]): void {
    const port = portOf(url);
    if (addresses.length === 0) throw new EgressRefusedError(url.hostname, `toolgate could not resolve ${url.hostname} to check where it leads, so it does not connect; ${allowHint(url.hostname, port)}`);
    for (const address of addresses) {
      const ip = parseIp(address);
      if (!ip) throw new EgressRefusedError(url.hostname, `${url.hostname} resolved to "${address}", which is not an IP address`);
      if (this.allowlist.admitsAddress(ip, port)) continue;
      const kind = internalAddressKind(ip);
      if (kind) throw new EgressRefusedError(url.hostname, `toolgate does not connect to ${url.hostname}: it resolves to ${address} (${kind}); ${allowHint(url.hostname, port)}`);
    }
  }
}
