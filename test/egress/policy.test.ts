import { describe, expect, it } from 'vitest';
import { EgressAllowError, EgressAllowlist } from '../../lib/egress/allowlist.ts';
import { internalAddressKind } from '../../lib/egress/internal-addresses.ts';
import { parseIp } from '../../lib/egress/ip.ts';
import { createRuntimeGateway, RuntimeConfigError } from '../../lib/http/runtime-gateway.ts';
import { EgressPolicy, EgressRefusedError } from '../../lib/egress/policy.ts';

const policy = (allow?: string) => new EgressPolicy(EgressAllowlist.parse(allow));
const verdict = (url: string, allow?: string) => {
  try {
    return policy(allow).checkUrl(new URL(url));
  } catch (error) {
    if (error instanceof EgressRefusedError) return `refused: ${error.message}`;
    throw error;
  }
};
const kind = (address: string) => internalAddressKind(parseIp(address)!);

describe('internal addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['169.254.169.254', 'cloud metadata service'],
    ['169.254.170.2', 'cloud metadata service (ECS)'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT (100.64.0.0/10)'],
    ['100.100.100.200', 'cloud metadata service (Alibaba)'],
    ['0.0.0.0', '"this network" (0.0.0.0/8)'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved (240.0.0.0/4)'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'cloud metadata service (AWS IPv6)'],
    ['fc00::1', 'unique local (private)'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1, loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1, loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254, cloud metadata service'],
    ['::127.0.0.1', 'IPv4-compatible 127.0.0.1, loopback'],
    ['64:ff9b::a00:1', 'NAT64 10.0.0.1, private (RFC 1918)'],
    ['2002:7f00:1::', '6to4 127.0.0.1, loopback'],
    ['2001:db8::1', 'documentation'],
    ['4000::1', 'reserved IPv6 (outside 2000::/3)'],
  ])('%s is %s', (address, expected) => {
    expect(kind(address)).toBe(expected);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::'])('%s is public', (address) => {
    expect(kind(address)).toBeUndefined();
  });

  it('reads only real addresses', () => {
    for (const text of ['256.0.0.1', '1.2.3', '01.2.3.4', '1::2::3', '12345::', 'example.com', '']) expect(parseIp(text), text).toBeUndefined();
  });
});

describe('URLs, as written', () => {
  it.each([
    ['http://127.0.0.1:8788/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://[::1]:8788/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped 127.0.0.1, loopback'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/', 'cloud metadata service'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata service'],
    ['http://10.0.0.5/', 'private (RFC 1918)'],
    ['http://0/', '"this network"'],
    ['http://localhost:8788/', 'a local or internal host name'],
    ['http://LOCALHOST./', 'a local or internal host name'],
    ['http://api.localhost/', 'a local or internal host name'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'a local or internal host name'],
    ['http://metadata/', 'a local or internal host name'],
    ['http://db.svc.cluster.local/', 'a local or internal host name'],
  ])('%s is refused (%s)', (url, reason) => {
    expect(verdict(url)).toContain(reason);
    expect(verdict(url)).toContain('TOOLGATE_EGRESS_ALLOW');
  });

  it('refuses schemes other than http(s)', () => {
    expect(verdict('file:///etc/passwd')).toBe('refused: toolgate connects only to http(s) URLs, not file:');
  });

  it('lets public literals through, and leaves names to be resolved', () => {
    expect(verdict('https://8.8.8.8/')).toBe('checked');
    expect(verdict('https://[2606:4700:4700::1111]/')).toBe('checked');
    expect(verdict('https://tools.example.com/lookup')).toBe('resolve');
  });

  it('says what the operator would add to allow exactly that destination', () => {
    expect(verdict('http://127.0.0.1:8788/rpc')).toBe(
      'refused: toolgate does not connect to 127.0.0.1 (loopback); the operator can allow it by adding "127.0.0.1:8788" to TOOLGATE_EGRESS_ALLOW',
    );
  });
});

describe('resolved addresses', () => {
  const check = (addresses: string[], allow?: string) => {
    try {
      policy(allow).checkAddresses(new URL('https://tools.example.com/x'), addresses);
      return 'ok';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('refuses a name if any address it resolves to is internal', () => {
    expect(check(['93.184.216.34'])).toBe('ok');
    expect(check(['93.184.216.34', '127.0.0.1'])).toBe('toolgate does not connect to tools.example.com: it resolves to 127.0.0.1 (loopback); the operator can allow it by adding "tools.example.com:443" to TOOLGATE_EGRESS_ALLOW');
    expect(check(['::ffff:10.0.0.1'])).toContain('IPv4-mapped 10.0.0.1, private (RFC 1918)');
    expect(check([])).toContain('could not resolve tools.example.com');
  });

  it('admits internal addresses the allowlist covers', () => {
    expect(check(['10.0.0.7'], '10.0.0.0/24')).toBe('ok');
    expect(check(['10.0.1.7'], '10.0.0.0/24')).toContain('private');
    expect(check(['::ffff:10.0.0.7'], '10.0.0.7')).toBe('ok');
    expect(check(['10.0.0.7'], '10.0.0.7:8443')).toContain('private');
  });
});

describe('the allowlist (TOOLGATE_EGRESS_ALLOW)', () => {
  it('admits exactly what it names: host, host:port, IP, IP:port, [IPv6]:port, CIDR', () => {
    const allow = 'exec.internal:8788, tools.corp ,127.0.0.1:9000,[::1]:9001,10.0.0.0/8,fd00::/8,192.168.1.5';
    expect(verdict('http://exec.internal:8788/', allow)).toBe('checked');
    expect(verdict('http://exec.internal:8789/', allow)).toContain('refused');
    expect(verdict('http://tools.corp:1234/', allow)).toBe('checked');
    expect(verdict('http://other.corp/', allow)).toContain('refused');
    expect(verdict('http://127.0.0.1:9000/', allow)).toBe('checked');
    expect(verdict('http://2130706433:9000/', allow)).toBe('checked');
    expect(verdict('http://127.0.0.1:9001/', allow)).toContain('refused');
    expect(verdict('http://127.0.0.2:9000/', allow)).toContain('refused');
    expect(verdict('http://[::1]:9001/', allow)).toBe('checked');
    expect(verdict('http://[::1]:9000/', allow)).toContain('refused');
    expect(verdict('http://10.200.3.4:5/', allow)).toBe('checked');
    expect(verdict('http://[fd12::1]/', allow)).toBe('checked');
    expect(verdict('http://192.168.1.5/', allow)).toBe('checked');
    expect(verdict('http://192.168.1.6/', allow)).toContain('refused');
    expect(verdict('http://169.254.169.254/', allow)).toContain('refused');
    // A name is admitted by its name: "localhost" in the list does not admit 127.0.0.1, nor the reverse.
    expect(verdict('http://localhost/', '127.0.0.1')).toContain('refused');
    expect(verdict('http://127.0.0.1/', 'localhost')).toContain('refused');
    expect(verdict('http://localhost/', 'localhost')).toBe('checked');
    // An https default port is 443: an entry for :80 does not admit it.
    expect(verdict('https://tools.corp/', 'tools.corp:80')).toContain('refused');
    expect(verdict('http://tools.corp/', 'tools.corp:80')).toBe('checked');
  });

  it.each([
    ['*.example.com', 'no wildcards or URLs'],
    ['http://10.0.0.1', 'no wildcards or URLs'],
    ['10.0.0.0/33', 'not an IP address or CIDR range'],
    ['host:0', 'has no valid port'],
    ['host:99999', 'has no valid port'],
    ['[10.0.0.1]', 'not an IPv6 address in brackets'],
  ])('refuses the entry %s, naming it, and the gateway does not start', (entry, message) => {
    expect(() => EgressAllowlist.parse(entry)).toThrow(EgressAllowError);
    expect(() => EgressAllowlist.parse(entry)).toThrow(message);
    const start = () => createRuntimeGateway({ runtime: 'workers', env: { TOOLGATE_STORE: 'memory', TOOLGATE_EGRESS_ALLOW: `127.0.0.1,${entry}` }, log: () => {} });
    expect(start).toThrow(RuntimeConfigError);
    expect(start).toThrow(`TOOLGATE_EGRESS_ALLOW entry "${entry}"`);
  });
});
