import type { LookupAddress } from 'node:dns';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { EgressAllowlist } from '../../lib/egress/allowlist.ts';
import { egressFetch, resolvingTransport, urlOnlyTransport } from '../../lib/egress/fetch.ts';
import { EgressPolicy, EgressRefusedError } from '../../lib/egress/policy.ts';
import type { EgressTransport } from '../../lib/egress/fetch.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * SSRF as a tenant admin would try it: tools whose URLs point at the gateway's own machine, its
 * private networks or the cloud's metadata service, in every spelling. Each is refused before a
 * byte is sent: the loopback servers standing in for those targets record every request.
 */

/** A resolver under the test's control: names lead wherever the attacker wants them to. */
const DNS: Record<string, string[]> = {
  'tools.attacker.example': ['127.0.0.1'],
  'v6.attacker.example': ['::1'],
  'mixed.attacker.example': ['93.184.216.34', '127.0.0.1'],
  'metadata.attacker.example': ['169.254.169.254'],
  'tools.partner.example': ['127.0.0.1'],
};
const lookups: string[] = [];
async function resolve(hostname: string): Promise<LookupAddress[]> {
  lookups.push(hostname);
  const addresses = DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

let v4: TestServer;
let v6: TestServer;
let other: TestServer;
beforeAll(async () => {
  v4 = await startTestServer((_req, res) => { res.end('internal data'); });
  v6 = await startTestServer((_req, res) => { res.end('internal data'); }, '::1');
  other = await startTestServer((_req, res) => { res.end('the other service'); });
});
afterAll(async () => {
  await Promise.all([v4.close(), v6.close(), other.close()]);
  sharedMcpSessionPool.clear();
});
afterEach(() => {
  for (const server of [v4, v6, other]) server.requests.length = 0;
  lookups.length = 0;
});

const portOf = (server: TestServer) => new URL(server.url).port;
const httpTool = (name: string, url: string) => ({
  name,
  description: `calls ${url}`,
  tier: 'read',
  input_schema: { type: 'object' },
  executor: { kind: 'http', url, secret: 'env:TOOL_SECRET' },
});

interface Result { call_id: string; status: string; content: string }

async function gatewayWith(tools: unknown[], allow: string, transport: EgressTransport = nodeEgressTransport({ resolve }), extra: Record<string, unknown> = {}) {
  const manifest = validManifest({ tools, ...extra });
  const env = { TOOL_SECRET: 'tool-secret', EXEC_SECRET: 'exec-secret-0123456789abcdef0123456789abcdef', TOOLGATE_TENANT_SECRETS: 'acme:TOOL_SECRET,EXEC_SECRET', TOOLGATE_EGRESS_ALLOW: allow };
  return testGateway([manifest], { agent: { tenant: 'acme' } }, { env, egressTransport: transport });
}

async function dispatch(gw: Awaited<ReturnType<typeof gatewayWith>>, names: string[], args: Record<string, unknown> = {}): Promise<Result[]> {
  const calls = names.map((name, i) => ({ call_id: `c${i}`, name, arguments: args }));
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: `egress-${Math.random()}`, calls, parallel: true } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Result[] }).results;
}

describe('egress of http executors (Node: checked on the addresses the connection uses)', () => {
  const targets = () => ({
    loopback: `http://127.0.0.1:${portOf(v4)}/steal`,
    ipv6_loopback: `http://[::1]:${portOf(v6)}/steal`,
    decimal: `http://2130706433:${portOf(v4)}/steal`,
    hex: `http://0x7f000001:${portOf(v4)}/steal`,
    short: `http://127.1:${portOf(v4)}/steal`,
    mapped: `http://[::ffff:127.0.0.1]:${portOf(v4)}/steal`,
    localhost: `http://localhost:${portOf(v4)}/steal`,
    resolves_loopback: `http://tools.attacker.example:${portOf(v4)}/steal`,
    resolves_v6_loopback: `http://v6.attacker.example:${portOf(v6)}/steal`,
    resolves_mixed: `http://mixed.attacker.example:${portOf(v4)}/steal`,
    resolves_metadata: 'http://metadata.attacker.example/latest/meta-data/iam/',
    metadata: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    metadata_name: 'http://metadata.google.internal/computeMetadata/v1/',
    private: 'http://10.0.0.1:8080/admin',
  });

  it('refuses every internal destination, in every spelling, before anything is sent', async () => {
    const entries = Object.entries(targets());
    const gw = await gatewayWith(entries.map(([name, url]) => httpTool(name, url)), '');
    const results = await dispatch(gw, entries.map(([name]) => name));
    for (const [i, [name, url]] of entries.entries()) {
      const host = new URL(url).hostname;
      expect(results[i].status, name).toBe('unavailable');
      expect(results[i].content, name).toContain(`Tool \`${name}\` is unavailable: toolgate does not connect to ${host}`);
      expect(results[i].content, name).toContain('TOOLGATE_EGRESS_ALLOW');
      expect(results[i].content, name).toContain('Nothing was sent.');
    }
    expect(v4.requests).toEqual([]);
    expect(v6.requests).toEqual([]);
    // Names that are internal by name are refused without a lookup; the others are resolved once each.
    expect(lookups.sort()).toEqual(['metadata.attacker.example', 'mixed.attacker.example', 'tools.attacker.example', 'v6.attacker.example']);
  });

  it('says why, in words the model and the operator can act on', async () => {
    const gw = await gatewayWith([httpTool('lookup', `http://tools.attacker.example:${portOf(v4)}/x`)], '');
    const [result] = await dispatch(gw, ['lookup']);
    expect(result.content).toBe(
      `Tool \`lookup\` is unavailable: toolgate does not connect to tools.attacker.example: it resolves to 127.0.0.1 (loopback); the operator can allow it by adding "tools.attacker.example:${portOf(v4)}" to TOOLGATE_EGRESS_ALLOW. Nothing was sent.`,
    );
  });

  it('the allowlist admits exactly what it names', async () => {
    const allow = `127.0.0.1:${portOf(v4)}`;
    const tools = [
      httpTool('named', `http://127.0.0.1:${portOf(v4)}/ok`),
      httpTool('decimal_of_named', `http://2130706433:${portOf(v4)}/ok`),
      httpTool('name_to_named', `http://tools.partner.example:${portOf(v4)}/ok`),
      httpTool('other_port', `http://127.0.0.1:${portOf(other)}/no`),
      httpTool('by_name', `http://localhost:${portOf(v4)}/no`),
      httpTool('v6', `http://[::1]:${portOf(v6)}/no`),
    ];
    const gw = await gatewayWith(tools, allow);
    const results = await dispatch(gw, tools.map((t) => t.name));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'unavailable', 'unavailable', 'unavailable']);
    expect(v4.requests.map((r) => r.url).sort()).toEqual(['/ok', '/ok', '/ok']);
    // The name no real DNS knows reached the address the check saw: the connection used it.
    expect(v4.requests.map((r) => r.headers.host)).toContain(`tools.partner.example:${portOf(v4)}`);
    expect(other.requests).toEqual([]);
    expect(v6.requests).toEqual([]);
  });

  it.each([
    ['Node', () => nodeEgressTransport({ resolve })],
    ["the runtime's fetch (Workers)", () => urlOnlyTransport],
  ])('does not follow a redirect from an allowed host to a refused one, nor to an allowed one (%s)', async (_, transport) => {
    const redirector = await startTestServer((req, res) => {
      res.writeHead(307, { location: req.url === '/to-allowed' ? `${v4.url}/second` : `${other.url}/internal-admin` });
      res.end();
    });
    try {
      const tools = [httpTool('bounce', `${redirector.url}/to-refused`), httpTool('bounce_allowed', `${redirector.url}/to-allowed`)];
      const gw = await gatewayWith(tools, `127.0.0.1:${portOf(redirector)},127.0.0.1:${portOf(v4)}`, transport());
      const [refused, allowed] = await dispatch(gw, ['bounce', 'bounce_allowed']);
      expect(refused).toMatchObject({ status: 'error', content: `Tool \`bounce\` answered HTTP 307 (a redirect to ${other.url}/internal-admin, which toolgate does not follow)` });
      expect(allowed).toMatchObject({ status: 'error', content: expect.stringContaining('which toolgate does not follow') });
      expect(redirector.requests).toHaveLength(2);
      expect(other.requests).toEqual([]);
      expect(v4.requests).toEqual([]);
    } finally {
      await redirector.close();
    }
  });
});

describe("Node's egress carries what the runtime's fetch did", () => {
  it('decodes a compressed answer, and a timeout aborts the request', async () => {
    let aborted = false;
    const tool = await startTestServer((req, res) => {
      if (req.url === '/slow') {
        res.on('close', () => { aborted = true; });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ customer: 'Ada' })));
    });
    try {
      const tools = [httpTool('lookup', `${tool.url}/gzip`), { ...httpTool('slow', `${tool.url}/slow`), timeout_ms: 200 }];
      const gw = await gatewayWith(tools, new URL(tool.url).host);
      const [lookup, slow] = await dispatch(gw, ['lookup', 'slow']);
      expect(lookup).toMatchObject({ status: 'ok', content: '{"customer":"Ada"}' });
      expect(slow).toMatchObject({ status: 'timeout' });
      await expect.poll(() => aborted).toBe(true);
    } finally {
      await tool.close();
    }
  });
});

describe('egress of mcp executors and exec-servers', () => {
  const mcpTool = (name: string, url: string) => ({ name, description: 'an upstream tool', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'mcp', url, tool: 'search', headers: { Authorization: 'env:TOOL_SECRET' } } });

  it('an mcp tool on an internal address is unavailable; the upstream never hears of it', async () => {
    const tools = [mcpTool('crm_loopback', `http://127.0.0.1:${portOf(v4)}/mcp`), mcpTool('crm_named', `http://tools.attacker.example:${portOf(v4)}/mcp`), mcpTool('crm_metadata', 'http://169.254.169.254/mcp')];
    const gw = await gatewayWith(tools, '');
    const results = await dispatch(gw, tools.map((t) => t.name));
    for (const result of results) {
      expect(result.status).toBe('unavailable');
      expect(result.content).toMatch(/^upstream MCP server at \S+ is unavailable: toolgate does not connect to .+ TOOLGATE_EGRESS_ALLOW\. Nothing was sent$/);
    }
    expect(v4.requests).toEqual([]);
  });

  it('an mcp upstream that redirects is not followed', async () => {
    const redirector = await startTestServer((_req, res) => {
      res.writeHead(307, { location: `${other.url}/mcp` });
      res.end();
    });
    try {
      const gw = await gatewayWith([mcpTool('crm', `${redirector.url}/mcp`)], `127.0.0.1:${portOf(redirector)}`);
      const [result] = await dispatch(gw, ['crm']);
      expect(result.status).toBe('unavailable');
      expect(result.content).toContain('it answered HTTP 307');
      expect(other.requests).toEqual([]);
    } finally {
      await redirector.close();
    }
  });

  it("a tenant's execution_environment on an internal address is unavailable; nothing reaches it", async () => {
    const environment = { execution_environment: { url: `http://127.0.0.1:${portOf(v4)}`, secret: 'env:EXEC_SECRET' } };
    const gw = await gatewayWith([], '', undefined, environment);
    const [read] = await dispatch(gw, ['read_file'], { file_path: 'README.md' });
    expect(read.status).toBe('unavailable');
    expect(read.content).toBe(
      `execution environment at http://127.0.0.1:${portOf(v4)} is unavailable: toolgate does not connect to 127.0.0.1 (loopback); the operator can allow it by adding "127.0.0.1:${portOf(v4)}" to TOOLGATE_EGRESS_ALLOW`,
    );
    expect(v4.requests).toEqual([]);
  });
});

describe('runtimes that check less', () => {
  it('Workers (no DNS): literal internal addresses and internal names are still refused', async () => {
    const tools = [httpTool('loopback', `http://127.0.0.1:${portOf(v4)}/x`), httpTool('mapped', `http://[::ffff:7f00:1]:${portOf(v4)}/x`), httpTool('local', `http://localhost:${portOf(v4)}/x`)];
    const gw = await gatewayWith(tools, '', urlOnlyTransport);
    expect((await dispatch(gw, ['loopback', 'mapped', 'local'])).map((r) => r.status)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(v4.requests).toEqual([]);
  });

  it('Deno (resolves, then fetches): a name resolving to loopback is refused before the fetch', async () => {
    const denoLike = resolvingTransport(async (hostname) => (await resolve(hostname)).map((a) => a.address));
    const guarded = egressFetch(new EgressPolicy(EgressAllowlist.parse('')), denoLike);
    await expect(guarded(`http://tools.attacker.example:${portOf(v4)}/x`)).rejects.toThrow(EgressRefusedError);
    await expect(guarded(`http://mixed.attacker.example:${portOf(v4)}/x`)).rejects.toThrow('it resolves to 127.0.0.1 (loopback)');
    expect(v4.requests).toEqual([]);
  });
});
