import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { McpToolExecutor } from '../../lib/registry/executors/mcp.ts';
import type { Manifest, McpImport } from '../../lib/registry/manifest/manifest.ts';
import { importMcpTools } from '../../lib/registry/mcp-upstream/import.ts';
import { testGateway } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';

const TOKEN_ENV = { CRM_MCP_TOKEN: 'Bearer upstream-token' };
/** The gateway's variables: the token, granted to the tenant whose manifest names it. */
const GATEWAY_ENV = { ...TOKEN_ENV, TOOLGATE_TENANT_SECRETS: 'acme:CRM_MCP_TOKEN' };
let upstream: McpUpstream;
beforeEach(async () => { upstream = await startMcpUpstream(); });
afterEach(async () => { await upstream.close(); });
afterAll(() => sharedMcpSessionPool.clear());

/** The upstream imported as an operator would: read tools granted, writes reviewed (the governance default). */
async function importedManifest(spec: Partial<McpImport> = {}): Promise<Manifest> {
  const manifest = validManifest({
    policy: { read: 'grant', write: 'review', execute: 'review' },
    mcp_imports: [{ server: 'crm', url: upstream.url, headers: { Authorization: 'env:CRM_MCP_TOKEN' }, tools: 'all', prefix: 'crm_', tiers: { search: 'read', admin_report: 'read' }, ...spec }],
  });
  return validManifest(await importMcpTools(manifest, TOKEN_ENV));
}

/** As `toolgate serve` runs it: Node's egress, which checks and pins the addresses it connects to. */
async function gatewayFor(manifest: Manifest, env: Record<string, string> = GATEWAY_ENV) {
  return testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } }, { env, egressTransport: nodeEgressTransport() });
}

type Gateway = Awaited<ReturnType<typeof gatewayFor>>;
interface Result { call_id: string; status: string; is_error: boolean; content: string; error?: { code: string; details?: Record<string, unknown> } }

async function dispatch(gw: Gateway, calls: Array<{ call_id: string; name: string; arguments: unknown }>): Promise<Result[]> {
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'mcp-1', calls, parallel: true } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Result[] }).results;
}
const call = async (gw: Gateway, name: string, args: unknown, call_id = 'c1') => (await dispatch(gw, [{ call_id, name, arguments: args }]))[0];

describe('imported MCP tools through the gateway', () => {
  it('runs a read tool: the upstream gets its own tool name, the arguments and the resolved token', async () => {
    const gw = await gatewayFor(await importedManifest());
    expect(await call(gw, 'crm_search', { query: 'ada' })).toMatchObject({ status: 'ok', is_error: false, content: '2 contacts match "ada"\nAda, Grace' });
    expect(upstream.calls).toEqual([{ name: 'search', arguments: { query: 'ada' }, authorization: 'Bearer upstream-token' }]);
  });

  it('validates against the pinned schema before anything reaches the upstream', async () => {
    const gw = await gatewayFor(await importedManifest());
    expect(await call(gw, 'crm_search', { query: 5 })).toMatchObject({ status: 'invalid_arguments' });
    expect(upstream.calls).toHaveLength(0);
  });

  it('maps images and resource links to short placeholders', async () => {
    const gw = await gatewayFor(await importedManifest());
    expect((await call(gw, 'crm_admin_report', {})).content).toBe('report ready\n[image/png image, 8 bytes base64]\n[resource file:///reports/1.pdf]');
  });

  it('reads at most 16 MiB of an answer: a larger one fails the call instead of being buffered whole', async () => {
    const gw = await gatewayFor(await importedManifest());
    // The SDK server streams its answer as server-sent events; reading stops at 16 MiB and the
    // call fails at once (read whole, the 20 MiB answer would be `ok`). The tool did run.
    const result = await call(gw, 'crm_search', { query: 'huge' });
    expect(result).toMatchObject({ status: 'error', is_error: true, error: { details: { uncertain: true } } });
    expect(result.content).toContain('the answer is larger than 16 MiB; toolgate reads no more of an answer');
    expect(result.content).not.toContain('xxxx');
    expect(await call(gw, 'crm_search', { query: 'ada' }, 'c2')).toMatchObject({ status: 'ok' });
  });

  it('an upstream isError result is an error result with its text', async () => {
    const gw = await gatewayFor(await importedManifest(), { ...GATEWAY_ENV, CRM_MCP_TOKEN: 'Bearer wrong' });
    expect(await call(gw, 'crm_admin_report', {})).toMatchObject({ status: 'error', is_error: true, content: 'missing or wrong bearer token' });
  });

  it('a JSON-RPC error from the upstream is an error result naming the server', async () => {
    const gw = await gatewayFor(await importedManifest());
    expect(await call(gw, 'crm_search', { query: 'boom' })).toMatchObject({
      status: 'error',
      content: `upstream MCP server at ${upstream.url} refused tools/call "search" (JSON-RPC error -32602): the search index is rebuilding`,
    });
  });

  it('a missing token secret, or a token the server refuses, is unavailable', async () => {
    const missing = await gatewayFor(await importedManifest(), { TOOLGATE_TENANT_SECRETS: GATEWAY_ENV.TOOLGATE_TENANT_SECRETS });
    expect(await call(missing, 'crm_search', { query: 'ada' })).toMatchObject({ status: 'unavailable', content: expect.stringContaining(`upstream MCP server at ${upstream.url} is unavailable: secret CRM_MCP_TOKEN is not set`) });
    const secure = await importedManifest({ url: upstream.secureUrl });
    const refused = await gatewayFor(secure, { ...GATEWAY_ENV, CRM_MCP_TOKEN: 'Bearer wrong' });
    expect(await call(refused, 'crm_search', { query: 'ada' })).toMatchObject({
      status: 'unavailable',
      content: `upstream MCP server at ${upstream.secureUrl} is unavailable: it refused the credentials (HTTP 401: {"error":"invalid_token"}); check the secret its headers name`,
    });
    expect(await call(await gatewayFor(secure), 'crm_search', { query: 'ada' })).toMatchObject({ status: 'ok' });
    expect(upstream.calls).toHaveLength(1);
  });

  it('an upstream that is down, or not MCP at all, is unavailable', async () => {
    const manifest = await importedManifest();
    const gw = await gatewayFor(manifest);
    expect(await call(gw, 'crm_search', { query: 'ada' })).toMatchObject({ status: 'ok' });
    await upstream.close();
    expect(await call(gw, 'crm_search', { query: 'ada' }, 'c2')).toMatchObject({ status: 'unavailable', content: `upstream MCP server at ${upstream.url} is unavailable: ECONNREFUSED` });
    const port = await closedPort();
    const elsewhere = (url: string) => ({ ...manifest, tools: manifest.tools.map((t) => (t.executor.kind === 'mcp' ? { ...t, executor: { ...t.executor, url } } : t)) });
    const down = await gatewayFor(elsewhere(`http://127.0.0.1:${port}/mcp`));
    expect(await call(down, 'crm_search', { query: 'ada' })).toMatchObject({ status: 'unavailable', content: `upstream MCP server at http://127.0.0.1:${port}/mcp is unavailable: ECONNREFUSED` });
    upstream = await startMcpUpstream();
    const notMcp = await gatewayFor(elsewhere(upstream.notMcpUrl));
    expect(await call(notMcp, 'crm_search', { query: 'ada' })).toMatchObject({ status: 'unavailable', content: expect.stringContaining('it answered with something other than MCP (Unexpected content type: text/html)') });
  });

  it("honours the tool's timeout, and cancels the call upstream", async () => {
    const gw = await gatewayFor(await importedManifest({ timeout_ms: 300 }));
    const imported = upstream.initializations;
    const started = performance.now();
    expect(await call(gw, 'crm_search', { query: 'slow' })).toMatchObject({ status: 'timeout', content: 'Tool `crm_search` timed out after 300 ms and was cancelled.' });
    expect(performance.now() - started).toBeLessThan(4000);
    await expect.poll(() => upstream.cancellations).toBe(1);
    // The session survives a cancelled call.
    expect(await call(gw, 'crm_search', { query: 'ada' }, 'c2')).toMatchObject({ status: 'ok' });
    expect(upstream.initializations - imported).toBe(1);
  });

  it('a hanging upstream ends at the timeout too', async () => {
    const manifest = await importedManifest({ timeout_ms: 300 });
    const hanging = { ...manifest, tools: manifest.tools.map((t) => (t.executor.kind === 'mcp' ? { ...t, executor: { ...t.executor, url: upstream.hangingUrl } } : t)) };
    expect(await call(await gatewayFor(hanging), 'crm_search', { query: 'ada' })).toMatchObject({ status: 'timeout' });
  });

  it('keeps one session for many calls, shares the handshake, and starts a new one when the server forgets it', async () => {
    const gw = await gatewayFor(await importedManifest());
    const imported = upstream.initializations;
    const results = await dispatch(gw, [1, 2, 3].map((i) => ({ call_id: `p${i}`, name: 'crm_search', arguments: { query: `q${i}` } })));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(upstream.initializations - imported).toBe(1);
    upstream.forgetSessions();
    expect(await call(gw, 'crm_search', { query: 'after restart' }, 'c4')).toMatchObject({ status: 'ok', content: expect.stringContaining('after restart') });
    expect(upstream.initializations - imported).toBe(2);
    expect(upstream.calls).toHaveLength(4);
  });

  it("keeps sessions per tenant: another tenant importing the same upstream never calls in this one's session (nor sees the state the upstream keeps in it)", async () => {
    const imported = async (tenant: string) => validManifest(await importMcpTools(validManifest({ tenant, policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: [{ server: 'crm', url: upstream.url, tools: ['search'], prefix: 'crm_', tiers: { search: 'read' } }] }), {}));
    const gw = await testGateway([await imported('acme'), await imported('globex')], { agent: { tenant: 'acme', principal: 'agent' }, other: { tenant: 'globex', principal: 'agent' } }, { egressTransport: nodeEgressTransport() });
    const before = upstream.initializations;
    for (const key of ['agent', 'other', 'agent', 'other']) {
      const response = await gw.request('/v1/dispatch', { key, json: { thread_id: 'per-tenant', calls: [{ call_id: crypto.randomUUID(), name: 'crm_search', arguments: { query: key } }] } });
      expect(((await response.json()) as { results: Result[] }).results[0]).toMatchObject({ status: 'ok' });
    }
    expect(upstream.initializations - before).toBe(2);
  });

  it('a server without sessions is initialized once too', async () => {
    const gw = await gatewayFor(await importedManifest({ url: upstream.statelessUrl }));
    const imported = upstream.initializations;
    expect(await call(gw, 'crm_search', { query: 'one' })).toMatchObject({ status: 'ok' });
    expect(await call(gw, 'crm_search', { query: 'two' }, 'c2')).toMatchObject({ status: 'ok', content: expect.stringContaining('two') });
    expect(upstream.initializations - imported).toBe(1);
  });

  it('a write tool parks for approval and runs upstream once, after it', async () => {
    const gw = await gatewayFor(await importedManifest());
    const parked = await call(gw, 'crm_create_contact', { name: 'Bo' });
    expect(parked).toMatchObject({ status: 'pending_approval' });
    expect(upstream.calls).toHaveLength(0);
    const decided = await gw.request(`/v1/approvals/${String(parked.error?.details?.approval_id)}`, { key: 'alice', json: { decision: 'approve' } });
    // No text block upstream: the structured content is the answer.
    expect(await decided.json()).toMatchObject({ approval: { state: 'executed' }, result: { status: 'ok', content: '{"id":"c-1","name":"Bo"}' } });
    expect(upstream.calls).toEqual([{ name: 'create_contact', arguments: { name: 'Bo' }, authorization: 'Bearer upstream-token' }]);
  });
});

describe('McpToolExecutor in a ToolRouter', () => {
  it('runs an upstream tool under the name and tier the code gives it', async () => {
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' } });
    const definition = defineTool({ name: 'add_contact', tier: 'write', input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    router.register(new McpToolExecutor(definition, { url: upstream.url, tool: 'create_contact' }));
    expect(await router.execute({ call_id: 'a', name: 'add_contact', arguments: { name: 'Cy' } })).toMatchObject({ status: 'ok', content: '{"id":"c-1","name":"Cy"}' });
    expect(await router.execute({ call_id: 'b', name: 'add_contact', arguments: { name: 'fail' } })).toMatchObject({ status: 'error', content: 'a contact named "fail" already exists' });
  });
});

describe('a call that may have reached the upstream tool', () => {
  it('is a stored error, not unavailable: a retry replays it instead of running a side effect twice', async () => {
    // Completes the MCP handshake, then drops the connection on tools/call: the tool may have run.
    const { createServer } = await import('node:http');
    let toolCalls = 0;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        const message = JSON.parse(body || '{}') as { id?: number; method?: string };
        if (message.method === 'tools/call') {
          toolCalls++;
          req.socket.destroy();
          return;
        }
        if (message.id === undefined) { res.writeHead(202).end(); return; }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'dropper', version: '1' } } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const { MemoryStore } = await import('../../lib/stores/memory.ts');
      const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: new MemoryStore() });
      router.register(new McpToolExecutor(defineTool({ name: 'transfer', tier: 'write' }), { url: `http://127.0.0.1:${port}/mcp`, tool: 'transfer' }));
      const first = await router.execute({ call_id: 'pay', name: 'transfer', arguments: {} });
      expect(first.status).toBe('error');
      expect(first.content).toMatch(/did not complete tools\/call "transfer" .*; it may have run: check its effect before calling again under a new call id$/);
      const retry = await router.execute({ call_id: 'pay', name: 'transfer', arguments: {} });
      expect(retry).toMatchObject({ status: 'error', replayed: true });
      expect(toolCalls).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('imported MCP tools through toolgate\'s own /mcp', () => {
  it('an MCP client calls them governed: reads run, writes park, an upstream that is down is unavailable', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const gw = await gatewayFor(await importedManifest());
    const client = new Client({ name: 'mcp-through-toolgate', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), {
      requestInit: { headers: { authorization: 'Bearer agent' } },
      fetch: async (input, init) => gw.app.fetch(new Request(input, init)),
    }));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'crm_search')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((t) => t.name === 'crm_create_contact')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });

      const read = await client.callTool({ name: 'crm_search', arguments: { query: 'Ada' } });
      expect(read).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok' } });
      expect(upstream.calls.map((c) => c.name)).toEqual(['search']);

      const write = await client.callTool({ name: 'crm_create_contact', arguments: { name: 'Bo' } });
      expect(write).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'pending_approval' } });
      expect(upstream.calls.map((c) => c.name)).toEqual(['search']);

      await upstream.close();
      sharedMcpSessionPool.clear();
      const down = await client.callTool({ name: 'crm_search', arguments: { query: 'Ada' } });
      expect(down).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'unavailable' } });
      expect((down.content as Array<{ text: string }>)[0].text).toMatch(/^upstream MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp is unavailable: /);
      upstream = await startMcpUpstream();
    } finally {
      await client.close();
    }
  });
});
