import { formatIpv4, parseIpRange, rangeContains, type IpAddress, type IpRange } from './ip.ts';

/**
 * Addresses an executor must not reach unless the operator allows them: the gateway's own
 * machine, its private networks and the cloud's metadata services (SSRF targets). The first
 * range that contains an address names it, so specific ranges come before the wide ones.
 */
const INTERNAL_RANGES: Array<[string, string]> = [
  ['169.254.169.254/32', 'cloud metadata service'],
  ['169.254.170.2/32', 'cloud metadata service (ECS)'],
  ['100.100.100.200/32', 'cloud metadata service (Alibaba)'],
  ['192.0.0.192/32', 'cloud metadata service (Oracle)'],
  ['fd00:ec2::254/128', 'cloud metadata service (AWS IPv6)'],
  ['0.0.0.0/8', '"this network" (0.0.0.0/8)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved (240.0.0.0/4)'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments (2001::/23)'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const RANGES: Array<[IpRange, string]> = INTERNAL_RANGES.map(([text, label]) => [parseIpRange(text)!, label]);

/** IPv6 forms that carry an IPv4 address: they reach that address, so it decides. */
const EMBEDDING: Array<[IpRange, string, (value: bigint) => bigint]> = [
  [parseIpRange('::ffff:0:0/96')!, 'IPv4-mapped', (value) => value & 0xffffffffn],
  [parseIpRange('::/96')!, 'IPv4-compatible', (value) => value & 0xffffffffn],
  [parseIpRange('64:ff9b::/96')!, 'NAT64', (value) => value & 0xffffffffn],
  [parseIpRange('2002::/16')!, '6to4', (value) => (value >> 80n) & 0xffffffffn],
];

/** Only 2000::/3 is global unicast; the rest of IPv6 is reserved (or listed above). */
const GLOBAL_UNICAST_V6 = parseIpRange('2000::/3')!;

/** Why `ip` is internal ("loopback", "private (RFC 1918)", ...), or undefined for a public address. */
export function internalAddressKind(ip: IpAddress): string | undefined {
  const listed = RANGES.find(([range]) => rangeContains(range, ip));
  if (listed) return listed[1];
  if (ip.version === 4) return undefined;
  for (const [range, form, embedded] of EMBEDDING) {
    if (!rangeContains(range, ip)) continue;
    const v4 = embedded(ip.value);
    const kind = internalAddressKind({ version: 4, value: v4 });
    return kind ? `${form} ${formatIpv4(v4)}, ${kind}` : undefined;
  }
  return rangeContains(GLOBAL_UNICAST_V6, ip) ? undefined : 'reserved IPv6 (outside 2000::/3)';
}
