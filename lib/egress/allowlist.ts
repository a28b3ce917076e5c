import { parseIpRange, rangeContains, unmapped, type IpAddress, type IpRange } from './ip.ts';

export const EGRESS_ALLOW_VARIABLE = 'TOOLGATE_EGRESS_ALLOW';

/** TOOLGATE_EGRESS_ALLOW holds an entry the gateway cannot read: a start-up configuration error. */
export class EgressAllowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressAllowError';
  }
}

type Entry = { kind: 'name'; name: string; port?: number } | { kind: 'range'; range: IpRange; port?: number };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

function parsePort(text: string | undefined, entry: string): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535) throw new EgressAllowError(`${EGRESS_ALLOW_VARIABLE} entry "${entry}" has no valid port (1-65535)`);
  return port;
}

/** One entry: "host", "host:port", "10.0.0.5", "10.0.0.5:8080", "[::1]:8788", "fd00::/8", "10.0.0.0/8". */
function parseEntry(entry: string): Entry {
  if (entry.includes('://') || entry.includes('*')) throw notAHost(entry);
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const range = parseIpRange(bracketed[1]);
    if (!range || range.version !== 6 || bracketed[1].includes('/')) throw new EgressAllowError(`${EGRESS_ALLOW_VARIABLE} entry "${entry}" is not an IPv6 address in brackets`);
    return { kind: 'range', range, port: parsePort(bracketed[2], entry) };
  }
  if (entry.includes('/') || entry.split(':').length > 2) {
    const range = parseIpRange(entry);
    if (!range) throw new EgressAllowError(`${EGRESS_ALLOW_VARIABLE} entry "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
    return { kind: 'range', range };
  }
  const [host, portText] = entry.split(':');
  const port = parsePort(portText, entry);
  const ip = parseIpRange(host);
  if (ip) return { kind: 'range', range: ip, port };
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(name)) throw notAHost(entry);
  return { kind: 'name', name, port };
}

function notAHost(entry: string): EgressAllowError {
  return new EgressAllowError(`${EGRESS_ALLOW_VARIABLE} entry "${entry}" is not a host, host:port, IP or CIDR (no wildcards or URLs: write e.g. exec.internal:8788 or 10.0.0.0/8)`);
}

/**
 * The operator's exceptions to the egress policy (TOOLGATE_EGRESS_ALLOW, comma-separated): a
 * host name admits that name (whatever it resolves to), an IP or CIDR admits those addresses
 * (whatever name led to them); either with ":port" admits that port only.
 */
export class EgressAllowlist {
  readonly #entries: Entry[];

  private constructor(entries: Entry[]) {
    this.#entries = entries;
  }

  static parse(value: string | undefined): EgressAllowlist {
    const entries = (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    return new EgressAllowlist(entries.map(parseEntry));
  }

  static readonly none = new EgressAllowlist([]);

  /** Whether the operator named this host (a name, as the URL spells it, lower-case). */
  admitsName(hostname: string, port: number): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.#entries.some((entry) => entry.kind === 'name' && entry.name === name && (entry.port === undefined || entry.port === port));
  }

  admitsAddress(address: IpAddress, port: number): boolean {
    const ip = unmapped(address);
    return this.#entries.some((entry) => entry.kind === 'range' && rangeContains(entry.range, ip) && (entry.port === undefined || entry.port === port));
  }
}
