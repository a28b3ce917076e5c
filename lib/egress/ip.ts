/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

/** A range of addresses: those whose first `prefix` bits equal `base`'s. */
export interface IpRange {
  version: 4 | 6;
  base: bigint;
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

/** Strict dotted-quad IPv4 ("127.0.0.1"); other spellings ("0x7f.1", "2130706433") are the URL parser's to normalise first. */
function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

/** The 16-bit groups of one side of "::" (a trailing dotted IPv4 counts as two groups). */
function ipv6Groups(side: string): bigint[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: bigint[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(BigInt(`0x${part}`));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = ipv6Groups(halves[0]);
  const tail = halves.length === 2 ? ipv6Groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<bigint>(missing).fill(0n), ...tail].reduce((value, group) => (value << 16n) | group, 0n);
}

/** Parses "10.0.0.1", "::1", "[::1]" or "fe80::1%eth0" (the zone is dropped); undefined for anything else. */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (bare.includes(':')) {
    const value = parseIpv6(bare);
    return value === undefined ? undefined : { version: 6, value };
  }
  const value = parseIpv4(bare);
  return value === undefined ? undefined : { version: 4, value };
}

/** Parses "10.0.0.0/8" or "fc00::/7"; a bare address is a range of one. */
export function parseIpRange(text: string): IpRange | undefined {
  const [address, prefixText, ...rest] = text.split('/');
  const ip = parseIp(address);
  if (!ip || rest.length > 0) return undefined;
  const bits = BITS[ip.version];
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  return { version: ip.version, base: ip.value, prefix };
}

export function rangeContains(range: IpRange, ip: IpAddress): boolean {
  if (range.version !== ip.version) return false;
  const shift = BigInt(BITS[ip.version] - range.prefix);
  return ip.value >> shift === range.base >> shift;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address it maps: a socket to one reaches the other. */
export function unmapped(ip: IpAddress): IpAddress {
  if (ip.version === 6 && ip.value >> 32n === 0xffffn) return { version: 4, value: ip.value & 0xffffffffn };
  return ip;
}

export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}
