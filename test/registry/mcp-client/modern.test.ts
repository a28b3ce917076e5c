/**
 * toolgate's own MCP client against an upstream at protocol revision 2026-07-28 (the official SDK
 * v2 server, which checks the envelope and every header against the body): the import learns the
 * era, calls never initialize, and results come through as the upstream sent them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../../lib/cli/node-egress.ts';
import { defineTool } from '../../../lib/registry/definition.ts';
import type { ToolExecutionContext, ToolNotification } from '../../../lib/registry/executor.ts';
import { McpToolExecutor, type McpExecutorConfig } from '../../../lib/registry/executors/mcp.ts';
import { ContentOutput } from '../../../lib/registry/content-parts.ts';
import type { Manifest } from '../../../lib/registry/manifest/manifest.ts';
import { importMcpTools } from '../../../lib/registry/mcp-upstream/import.ts';
import { testGateway } from '../../helpers/gateway.ts';
import { validManifest } from '../../helpers/manifests.ts';
import { startModernUpstream, type ModernUpstream } from '../../helpers/mcp-modern-upstream.ts';

let upstream: ModernUpstream;
beforeEach(async () => { upstream = await startModernUpstream(); });
afterEach(async () => { await upstream.close(); });

async function imported(): Promise<Manifest> {
  const manifest = validManifest({ policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: [{ server: 'crm', url: upstream.url, tools: 'all', prefix: 'crm_', tier: 'read' }] });
  return validManifest(await importMcpTools(manifest, {}));
}

async function gateway() {
  return testGateway([await imported()], { agent: { tenant: 'acme', principal: 'agent' } }, { egressTransport: nodeEgressTransport() });
}

interface Result { status: string; is_error: boolean; content: string; content_parts?: Array<Record<string, unknown>>; structured_content?: unknown; meta?: unknown; error?: { message: string } }

async function dispatch(gw: Awaited<ReturnType<typeof gateway>>, name: string, args: unknown): Promise<Result> {
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'modern', calls: [{ call_id: 'c1', name, arguments: args }] } });
  return ((await response.json()) as { results: Result[] }).results[0];
}

/** The pinned tool as an executor, for the context hooks the MCP face will set. */
async function executorFor(name: string, config: Partial<McpExecutorConfig> = {}): Promise<McpToolExecutor> {
  const tool = (await imported()).tools.find((t) => t.name === name)!;
  const definition = defineTool({ name: tool.name, description: tool.description, input_schema: tool.input_schema as Record<string, unknown>, tier: 'read' });
  return new McpToolExecutor(definition, { ...(tool.executor as unknown as McpExecutorConfig), ...config }, { fetch: (input, init) => fetch(input, init) });
}

const context = (extra: Partial<ToolExecutionContext> = {}): ToolExecutionContext => ({ signal: AbortSignal.timeout(5000), call_id: 'c1', thread_id: 't', tenant: 'acme', principal: 'agent', env: {}, ...extra });

describe('an upstream at 2026-07-28', () => {
  it('is imported as such, and called statelessly: the envelope and the Mcp-* headers on every request, never initialize', async () => {
    const manifest = await imported();
    expect(manifest.tools.map((t) => [t.name, t.executor.protocol])).toEqual([['echo', undefined], ['crm_search', '2026-07-28'], ['crm_fails', '2026-07-28'], ['crm_progress', '2026-07-28'], ['crm_confirm', '2026-07-28']]);
    const result = await dispatch(await gateway(), 'crm_search', { query: ' Zoë ' });
    expect(result).toMatchObject({ status: 'ok', content: expect.stringContaining('found  Zoë ') });
    expect(upstream.requests.map((r) => r.method)).not.toContain('initialize');
    const call = upstream.requests.find((r) => r.method === 'tools/call')!;
    // Mcp-Param-Query mirrors the argument; edge spaces and non-ASCII go base64 (the SDK decodes and compares).
    expect(call.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search', 'mcp-param-query': `=?base64?${Buffer.from(' Zoë ').toString('base64')}?=`, 'mcp-session-id': undefined });
    expect(call.meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'toolgate' }, 'io.modelcontextprotocol/clientCapabilities': {} });
  });

  it('passes the result through: annotations and _meta on parts, a link with its title and icons, structured content, the result _meta, all without reserved keys', async () => {
    const result = await dispatch(await gateway(), 'crm_search', { query: 'ada' });
    expect(result.content_parts).toEqual([
      { type: 'text', text: 'found ada', annotations: { audience: ['user'], priority: 0.7 }, _meta: { 'crm/source': 'index' } },
      { type: 'resource_link', uri: 'crm://contacts/1', name: 'ada', title: 'Ada Lovelace', icons: [{ src: 'https://crm.example/ada.png', mimeType: 'image/png' }], annotations: { priority: 0.2 } },
    ]);
    expect(result.structured_content).toEqual({ count: 1 });
    expect(result.meta).toEqual({ 'crm/took_ms': 3 });
  });

  it('an isError result keeps its blocks and structured content, through /v1/dispatch and /mcp', async () => {
    const gw = await gateway();
    expect(await dispatch(gw, 'crm_fails', {})).toMatchObject({
      status: 'error',
      is_error: true,
      content: 'the index is offline',
      error: { message: 'the index is offline' },
      content_parts: [{ type: 'text', text: 'the index is offline', annotations: { audience: ['assistant'] } }],
      structured_content: { retry_after_s: 30 },
    });
    const response = await gw.request('/mcp', { key: 'agent', json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'crm_fails', arguments: {} } }, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } });
    // A legacy client hears an upstream tool's log messages: the answer is an event stream, the result its last event.
    const last = (await response.text()).trim().split('\n').at(-1)!;
    expect((JSON.parse(last.slice('data: '.length)) as { result: unknown }).result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'the index is offline', annotations: { audience: ['assistant'] } }],
      structuredContent: { retry_after_s: 30 },
    });
  });

  it('relays progress (under the caller\'s token, never sent upstream) and log messages to a listener; without one they are dropped and counted', async () => {
    const executor = await executorFor('crm_progress');
    const heard: ToolNotification[] = [];
    await executor.execute({}, context({ notify: (n) => heard.push(n), progress_token: 'caller-token', log_level: 'info' }));
    expect(heard).toEqual([
      ...[1, 2, 3].map((progress) => ({ method: 'notifications/progress', params: { progressToken: 'caller-token', progress, total: 3 } })),
      { method: 'notifications/message', params: expect.objectContaining({ level: 'info', data: 'halfway there' }) },
    ]);
    const sent = upstream.requests.find((r) => r.method === 'tools/call')!;
    expect(sent.meta.progressToken).toMatch(/^toolgate-/);
    expect(sent.meta['io.modelcontextprotocol/logLevel']).toBe('info');

    const logged: Array<[string, Record<string, unknown>]> = [];
    await executor.execute({}, context({ log_level: 'info', progress_token: 'nobody-listens', log: (event, fields) => logged.push([event, fields]) }));
    expect(upstream.requests.filter((r) => r.method === 'tools/call')[1].meta.progressToken).toBeUndefined();
    expect(logged).toEqual([['mcp.notifications.dropped', expect.objectContaining({ call_id: 'c1', tool: 'progress', count: 1, by_method: { 'notifications/message': 1 } })]]);
  });

  it('an upstream asking for input fails the call at once, unless the caller\'s client can answer: then it is asked and the call retried', async () => {
    // Declaring nothing it can be asked (no relay): the upstream refuses the call outright.
    expect(await dispatch(await gateway(), 'crm_confirm', {})).toMatchObject({
      status: 'error',
      content: expect.stringMatching(/refused tools\/call "confirm" \(JSON-RPC error -32021\): Cannot request input 'confirm' \(elicitation\/create\)/),
    });
    // A pin that declares elicitation gets input_required, which toolgate cannot relay here.
    const pinned = await executorFor('crm_confirm', { client_capabilities: { elicitation: { form: {} } } });
    await expect(pinned.execute({}, context())).rejects.toThrow(/needs input from the client that made this call: toolgate cannot relay elicitation\/create to the client that made this call, so the tool cannot ask the user here/);

    const asked: unknown[] = [];
    const output = await (await executorFor('crm_confirm')).execute({}, context({ ask_client: async (request) => { asked.push(request); return { action: 'accept', content: { ok: true } }; } }));
    expect(asked).toEqual([{ method: 'elicitation/create', params: expect.objectContaining({ message: 'Really?' }) }]);
    expect(output).toBeInstanceOf(ContentOutput);
    expect((output as ContentOutput).content).toEqual([{ type: 'text', text: 'the user said accept' }]);
  });
});
