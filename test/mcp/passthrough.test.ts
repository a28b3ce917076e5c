/**
 * What an upstream MCP tool says reaches the MCP client that called it through toolgate: the
 * result's own `_meta` (under toolgate's reserved keys), and progress and log notifications,
 * relayed on the call's event stream when the request asks for them (a progress token; a log
 * level on 2026-07-28; always logs on the legacy revisions, whose level a stateless gateway
 * cannot remember). Other answers stay plain JSON; notifications nobody asked for are dropped
 * and counted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { importMcpTools } from '../../lib/registry/mcp-upstream/import.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startModernUpstream, type ModernUpstream } from '../helpers/mcp-modern-upstream.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';

const MODERN = '2026-07-28';
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

let modern: ModernUpstream;
let legacy: McpUpstream;
let gw: Awaited<ReturnType<typeof testGateway>>;
let logged: Array<[string, Record<string, unknown>]>;

beforeEach(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream(), startMcpUpstream()]);
  legacy.tools = [
    {
      tool: { name: 'report', description: 'Reports progress and logs as it works.', inputSchema: { type: 'object', properties: {} } },
      async run(_args, { meta, notify }) {
        for (let progress = 1; progress <= 3; progress++) {
          if (meta.progressToken !== undefined) await notify('notifications/progress', { progressToken: meta.progressToken as string, progress, total: 3 });
        }
        await notify('notifications/message', { level: 'debug', logger: 'crm', data: 'indexed 3 contacts' });
        return { content: [{ type: 'text', text: 'report done' }], _meta: { 'crm/pages': 2 } };
      },
    },
  ];
  const manifest = validManifest({
    policy: { read: 'grant', write: 'deny', execute: 'deny' },
    mcp_imports: [
      { server: 'crm26', url: modern.url, tools: ['search', 'progress'], prefix: 'm_', tier: 'read' },
      { server: 'crm25', url: legacy.url, tools: ['report'], prefix: 'l_', tier: 'read' },
      { server: 'scoped', url: legacy.url, tools: ['report'], prefix: 's_', tier: 'read', scopes: ['crm'] },
    ],
  });
  logged = [];
  gw = await testGateway([validManifest(await importMcpTools(manifest, {}))], { agent: { tenant: 'acme', principal: 'agent' } }, { egressTransport: nodeEgressTransport(), log: (event, fields) => logged.push([event, fields ?? {}]) });
});
afterEach(async () => {
  await Promise.all([modern.close(), legacy.close()]);
});
afterAll(() => sharedMcpSessionPool.clear());

const call = (id: number, name: string, meta?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: name === 'm_search' ? { query: 'ada' } : {}, ...(meta ? { _meta: meta } : {}) } });

const post = (body: unknown, headers: Record<string, string> = {}) => gw.request('/mcp', { key: 'agent', json: body, headers: { ...ACCEPT, ...headers } });

function modernHeaders(name: string): Record<string, string> {
  return { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
}

/** The JSON-RPC messages of an event-stream answer, in order. */
async function events(response: Response): Promise<Array<Record<string, unknown>>> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const text = await response.text();
  return text.split('\n\n').filter((block) => block.trim() !== '').map((block) => {
    expect(block.startsWith('event: message\ndata: ')).toBe(true);
    return JSON.parse(block.slice('event: message\ndata: '.length)) as Record<string, unknown>;
  });
}

const dropped = () => logged.filter(([event]) => event === 'mcp.notifications.dropped').map(([, fields]) => fields.by_method);

describe("an upstream result's _meta", () => {
  it('reaches the MCP client beside toolgate\'s own keys, which an upstream cannot set (both eras)', async () => {
    const legacyAnswer = await events(await post(call(1, 'l_report')));
    expect(legacyAnswer.at(-1)).toMatchObject({ id: 1, result: { _meta: { 'crm/pages': 2, 'toolgate/status': 'ok' } } });
    const modernAnswer = (await (await post(call(2, 'm_search', ENVELOPE), { ...modernHeaders('m_search'), 'mcp-param-query': 'ada' })).json()) as { result: { _meta: Record<string, unknown> } };
    expect(modernAnswer.result._meta).toMatchObject({ 'crm/took_ms': 3, 'toolgate/status': 'ok', 'io.modelcontextprotocol/serverInfo': { name: 'toolgate' } });
    expect(modernAnswer.result._meta['toolgate/call_id']).not.toBe('spoofed');
    expect(modernAnswer.result._meta).not.toHaveProperty('io.modelcontextprotocol/related-task');
  });
});

describe('progress and log notifications on 2026-07-28', () => {
  it('a call with a progress token and a log level is answered as an event stream: the progress under the client\'s token, the log message, then the result', async () => {
    const response = await post(call(3, 'm_progress', { ...ENVELOPE, progressToken: 'p-1', 'io.modelcontextprotocol/logLevel': 'info' }), modernHeaders('m_progress'));
    expect(response.status).toBe(200);
    const messages = await events(response);
    expect(messages).toEqual([
      ...[1, 2, 3].map((progress) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress, total: 3 } })),
      { jsonrpc: '2.0', method: 'notifications/message', params: expect.objectContaining({ level: 'info', data: 'halfway there' }) },
      { jsonrpc: '2.0', id: 3, result: expect.objectContaining({ resultType: 'complete', content: [{ type: 'text', text: 'done' }], isError: false }) },
    ]);
    // toolgate's own token went upstream, never the client's.
    expect(modern.requests.find((r) => r.method === 'tools/call')?.meta.progressToken).toMatch(/^toolgate-/);
  });

  it('no log messages without a log level, or below it: a modern upstream is asked for none; what a legacy upstream sends is dropped and counted', async () => {
    for (const level of [undefined, 'warning']) {
      const meta = { ...ENVELOPE, progressToken: 7, ...(level ? { 'io.modelcontextprotocol/logLevel': level } : {}) };
      for (const tool of ['m_progress', 'l_report']) {
        const messages = await events(await post(call(4, tool, meta), modernHeaders(tool)));
        expect(messages.map((m) => m.method ?? 'answer')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'answer']);
      }
    }
    expect(modern.requests.filter((r) => r.method === 'tools/call').map((r) => r.meta['io.modelcontextprotocol/logLevel'])).toEqual([undefined, 'warning']);
    expect(dropped()).toEqual([{ 'notifications/message': 1 }, { 'notifications/message': 1 }]);
  });

  it('a call that asks to hear nothing is answered as JSON; what the upstream said is dropped and counted', async () => {
    const response = await post(call(5, 'l_report', ENVELOPE), modernHeaders('l_report'));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'report done' }] } });
    expect(dropped()).toEqual([{ 'notifications/message': 1 }]);
  });
});

describe('progress and log notifications on the legacy revisions', () => {
  it('reach the official SDK v1 client: progress to its onprogress, log messages to its handler', async () => {
    const client = new Client({ name: 'legacy-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), { requestInit: { headers: { authorization: 'Bearer agent' } }, fetch: async (input, init) => gw.app.fetch(new Request(input, init)) }));
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'l_report', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) });
    await client.close();
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'report done' }] });
    expect(progress).toEqual([1, 2, 3].map((n) => ({ progress: n, total: 3 })));
    expect(logs).toEqual([{ level: 'debug', logger: 'crm', data: 'indexed 3 contacts' }]);
  });

  it('a batch holding an upstream call streams every answer after the notifications; a built-in tool stays JSON', async () => {
    const messages = await events(await post([call(6, 'l_report'), call(7, 'echo')]));
    expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 6, 7]);
    const builtin = await post({ ...call(8, 'echo'), params: { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: 'p' } } });
    expect([builtin.headers.get('content-type'), await builtin.text()]).toEqual(['application/json', expect.stringContaining('"id":8')]);
  });

  it('a caller without the tool\'s scopes gets the JSON refusal (which a token turns into 403 insufficient_scope), not a stream', async () => {
    const refused = await post(call(9, 's_report', { progressToken: 'p' }));
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(await refused.json()).toMatchObject({ id: 9, result: { isError: true, _meta: { 'toolgate/status': 'forbidden' } } });
  });
});
