import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

let gw: Awaited<ReturnType<typeof testGateway>>;
let client: Client;
let runs = 0;

/** The official SDK client, talking to the in-process app through a fetch of its own. */
async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    fetch: async (input, init) => gw.app.fetch(new Request(input, init)),
  });
  const mcp = new Client({ name: 'test-client', version: '1.0.0' });
  await mcp.connect(transport);
  return mcp;
}

beforeEach(async () => {
  runs = 0;
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'review', execute: 'deny' },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'nuke', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } },
    ],
  });
  gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const save = runtime.registry.get('save_note')!;
  runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; return save.execute(args, ctx); } }, { replace: true });
  client = await connect('agent');
});
afterEach(async () => {
  await client?.close();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0].text;

describe('POST /mcp with the official MCP client', () => {
  it('initializes and lists the tools with annotations from their tiers', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'toolgate', version: '1' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.annotations])).toEqual([
      ['echo', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
      ['save_note', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ]);
    // nuke is not listed: the policy denies every execute call (a call of it is still answered as denied, below).
  });

  it('calls a tool, and returns invalid arguments, unknown tools and denials as isError results', async () => {
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'over MCP' } });
    expect(ok).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok' } });
    expect(text(ok)).toBe('over MCP');
    const invalid = await client.callTool({ name: 'echo', arguments: { text: 1 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('`text` must be a string, got number 1');
    const unknown = await client.callTool({ name: 'teleport', arguments: {} });
    expect(unknown).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'unknown_tool' } });
    const denied = await client.callTool({ name: 'nuke', arguments: { text: 'boom' } });
    expect(denied).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'denied' } });
  });

  it('parks a write for approval; a later identical call returns the outcome, and replays it', async () => {
    const parked = await client.callTool({ name: 'save_note', arguments: { text: 'remember' } });
    expect(parked).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'pending_approval', 'toolgate/approval_id': expect.stringMatching(/^apr_/) } });
    expect(text(parked)).toContain("needs a human's approval before it runs");
    const again = await client.callTool({ name: 'save_note', arguments: { text: 'remember' } });
    expect(again._meta?.['toolgate/approval_id']).toBe(parked._meta?.['toolgate/approval_id']);
    const id = String(parked._meta?.['toolgate/approval_id']);
    expect((await gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } })).status).toBe(200);
    const outcome = await client.callTool({ name: 'save_note', arguments: { text: 'remember' } });
    expect(outcome).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok', 'toolgate/replayed': true } });
    expect(text(outcome)).toBe('remember');
    expect(runs).toBe(1);
  });

  it('keeps threads apart by the X-Toolgate-Thread header', async () => {
    const other = await connect('agent', { 'x-toolgate-thread': 'thread-b' });
    const a = await client.callTool({ name: 'save_note', arguments: { text: 'x' } });
    const b = await other.callTool({ name: 'save_note', arguments: { text: 'x' } });
    expect(a._meta?.['toolgate/approval_id']).not.toBe(b._meta?.['toolgate/approval_id']);
    await other.close();
  });

  it('needs an API key, and answers 405 to GET', async () => {
    const anonymous = await gw.app.request('/mcp', { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const get = await gw.request('/mcp', { key: 'agent', headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
