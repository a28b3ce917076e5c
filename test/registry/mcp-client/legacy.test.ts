/**
 * toolgate's own MCP client against legacy upstreams (the official SDK v1 server, sessions,
 * answers as event streams or JSON): results verbatim, the upstream's requests of the client
 * answered at once, notifications relayed or dropped and counted.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../../lib/cli/node-egress.ts';
import { ContentOutput } from '../../../lib/registry/content-parts.ts';
import { defineTool } from '../../../lib/registry/definition.ts';
import type { ToolExecutionContext, ToolNotification } from '../../../lib/registry/executor.ts';
import { McpToolExecutor, type McpExecutorConfig } from '../../../lib/registry/executors/mcp.ts';
import { sharedMcpSessionPool } from '../../../lib/registry/executors/mcp-session-pool.ts';
import type { Manifest } from '../../../lib/registry/manifest/manifest.ts';
import { importMcpTools } from '../../../lib/registry/mcp-upstream/import.ts';
import { testGateway } from '../../helpers/gateway.ts';
import { validManifest } from '../../helpers/manifests.ts';
import { startMcpUpstream, upstreamTools, type McpUpstream, type UpstreamTool } from '../../helpers/mcp-upstream.ts';

const NO_ARGS = { type: 'object' as const, properties: {} };

/** Tools that exercise what passes through besides plain text. */
const richTools: UpstreamTool[] = [
  {
    tool: { name: 'annotated', description: 'Answers with annotations.', inputSchema: NO_ARGS },
    run: () => ({
      content: [
        { type: 'text', text: 'for you', annotations: { audience: ['user', 'assistant'], priority: 1, lastModified: '2026-07-28T10:00:00Z' }, _meta: { 'crm/id': 7, 'io.modelcontextprotocol/x': 'reserved' } },
        { type: 'resource_link', uri: 'crm://c/1', name: 'c1', title: 'Contact one', icons: [{ src: 'https://crm.example/1.png', sizes: ['48x48'], theme: 'dark' }], _meta: { 'crm/kind': 'contact' } },
      ],
      _meta: { 'crm/trace': 'abc', 'toolgate/status': 'ok-spoofed' },
    }),
  },
  {
    tool: { name: 'refuses', description: 'Fails with content.', inputSchema: NO_ARGS },
    run: () => ({ isError: true, content: [{ type: 'text', text: 'quota exceeded' }, { type: 'text', text: 'try tomorrow', annotations: { priority: 0.1 } }], structuredContent: { quota: 0 } }),
  },
  {
    tool: { name: 'silent_failure', description: 'Fails without a word.', inputSchema: NO_ARGS },
    run: () => ({ isError: true, content: [] }),
  },
  {
    tool: { name: 'report', description: 'Reports progress and logs as it works.', inputSchema: NO_ARGS },
    async run(_args, { meta, notify }) {
      for (let progress = 1; progress <= 3; progress++) {
        if (meta.progressToken !== undefined) await notify('notifications/progress', { progressToken: meta.progressToken as string, progress, total: 3 });
      }
      await notify('notifications/message', { level: 'info', logger: 'crm', data: 'indexed 3 contacts' });
      return { content: [{ type: 'text', text: 'report done' }] };
    },
  },
  {
    tool: { name: 'chatty', description: 'Pings its client without end.', inputSchema: NO_ARGS },
    async run(_args, { ask }) {
      for (let i = 0; i < 100; i++) await ask('ping', {});
      return { content: [{ type: 'text', text: 'pinged 100 times' }] };
    },
  },
  {
    tool: { name: 'ask_model', description: 'Asks the client\'s model.', inputSchema: NO_ARGS },
    needs: 'sampling',
    async run(_args, { ask }) {
      const answer = await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 10 });
      return { content: [{ type: 'text', text: `the model said ${JSON.stringify(answer)}` }] };
    },
  },
  {
    tool: { name: 'ask_roots_outside', description: 'Asks for roots outside the call, as some servers do.', inputSchema: NO_ARGS },
    needs: 'roots',
    async run(_args, { askOutside }) {
      try {
        return { content: [{ type: 'text', text: `roots: ${JSON.stringify(await askOutside('roots/list', {}))}` }] };
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: `no roots: ${(error as Error).message}` }] };
      }
    },
  },
  {
    tool: { name: 'ask_user', description: 'Asks the user.', inputSchema: NO_ARGS },
    needs: 'elicitation',
    async run(_args, { ask }) {
      const answer = await ask('elicitation/create', { message: 'Which one?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [{ type: 'text', text: `the user said ${JSON.stringify(answer)}` }] };
    },
  },
];

let upstream: McpUpstream;
beforeEach(async () => {
  upstream = await startMcpUpstream({ pageSize: 3 });
  upstream.tools = [...upstreamTools(upstream.bearer), ...richTools];
});
afterEach(async () => { await upstream.close(); });
afterAll(() => sharedMcpSessionPool.clear());

async function imported(url = upstream.url): Promise<Manifest> {
  const manifest = validManifest({ policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: [{ server: 'crm', url, tools: 'all', tier: 'read', timeout_ms: 20_000 }] });
  return validManifest(await importMcpTools(manifest, {}));
}

interface Result { status: string; is_error: boolean; content: string; content_parts?: unknown[]; structured_content?: unknown; meta?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } }

async function dispatch(manifest: Manifest, name: string): Promise<Result> {
  const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' } }, { egressTransport: nodeEgressTransport() });
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'legacy', calls: [{ call_id: 'c1', name, arguments: {} }] } });
  return ((await response.json()) as { results: Result[] }).results[0];
}

async function executorFor(name: string): Promise<McpToolExecutor> {
  const tool = (await imported()).tools.find((t) => t.name === name)!;
  return new McpToolExecutor(defineTool({ name, description: tool.description, input_schema: NO_ARGS, tier: 'read' }), tool.executor as unknown as McpExecutorConfig, { fetch: (input, init) => fetch(input, init) });
}

const context = (extra: Partial<ToolExecutionContext> = {}): ToolExecutionContext => ({ signal: AbortSignal.timeout(10_000), call_id: 'c1', thread_id: 't', tenant: 'acme', principal: 'agent', env: {}, ...extra });

describe('results from a legacy upstream, as it sent them', () => {
  it('annotations and _meta on parts, a link\'s title and icons, and the result\'s _meta, without the keys reserved for toolgate and MCP; over event streams and JSON alike', async () => {
    for (const url of [upstream.url, upstream.jsonUrl]) {
      const result = await dispatch(await imported(url), 'annotated');
      expect(result).toMatchObject({ status: 'ok', content: 'for you\n[resource crm://c/1]', meta: { 'crm/trace': 'abc' } });
      expect(result.content_parts).toEqual([
        { type: 'text', text: 'for you', annotations: { audience: ['user', 'assistant'], priority: 1, lastModified: '2026-07-28T10:00:00Z' }, _meta: { 'crm/id': 7 } },
        { type: 'resource_link', uri: 'crm://c/1', name: 'c1', title: 'Contact one', icons: [{ src: 'https://crm.example/1.png', sizes: ['48x48'], theme: 'dark' }], _meta: { 'crm/kind': 'contact' } },
      ]);
    }
  });

  it('an isError result keeps its blocks and structured content; one without a word says so', async () => {
    const manifest = await imported();
    expect(await dispatch(manifest, 'refuses')).toMatchObject({
      status: 'error',
      content: 'quota exceeded\ntry tomorrow',
      error: { code: 'error', message: 'quota exceeded\ntry tomorrow' },
      content_parts: [{ type: 'text', text: 'quota exceeded' }, { type: 'text', text: 'try tomorrow', annotations: { priority: 0.1 } }],
      structured_content: { quota: 0 },
    });
    expect(await dispatch(manifest, 'silent_failure')).toMatchObject({ status: 'error', content: `upstream tool "silent_failure" at ${upstream.url} reported an error without a message` });
  });
});

describe("an upstream's requests of the client", () => {
  it('are answered at once with an error naming what toolgate cannot relay, so the call fails fast instead of timing out', async () => {
    const manifest = await imported();
    // Offered only to clients that can be asked: the import pins the capabilities to declare for them.
    expect(manifest.tools.find((t) => t.name === 'ask_model')?.executor.client_capabilities).toEqual({ sampling: {}, elicitation: { form: {}, url: {} }, roots: {} });
    expect(manifest.tools.find((t) => t.name === 'annotated')?.executor.client_capabilities).toBeUndefined();
    const model = await dispatch(manifest, 'ask_model');
    expect(model.status).toBe('error');
    expect(model.content).toContain('toolgate cannot relay sampling/createMessage to the client that made this call, so the tool cannot ask the model here');
    const user = await dispatch(manifest, 'ask_user');
    expect(user.status).toBe('error');
    expect(user.content).toContain('toolgate cannot relay elicitation/create to the client that made this call, so the tool cannot ask the user here');
    // The upstream got the refusal as a JSON-RPC error answer to its own request.
    expect(upstream.messages.filter((m) => m.error)).toEqual([
      { jsonrpc: '2.0', id: expect.anything(), error: { code: -32601, message: expect.stringContaining('cannot relay sampling/createMessage') } },
      { jsonrpc: '2.0', id: expect.anything(), error: { code: -32601, message: expect.stringContaining('cannot relay elicitation/create') } },
    ]);
  });

  it('are answered a bounded number of times in one call: an upstream cannot make toolgate send without end', async () => {
    const result = await dispatch(await imported(), 'chatty');
    expect(result).toMatchObject({ status: 'error', content: expect.stringContaining('(it sent more than 32 requests of the client during one call); it may have run') });
    expect(upstream.messages.filter((m) => m.result !== undefined)).toHaveLength(32);
  });

  it('made outside the call, on the session\'s own stream, are heard while the call runs and refused at once, never relayed', async () => {
    const logged: Array<[string, Record<string, unknown>]> = [];
    const asked: unknown[] = [];
    const output = await (await executorFor('ask_roots_outside')).execute({}, context({ log: (event, fields) => logged.push([event, fields]), ask_client: async (request) => { asked.push(request); return { roots: [] }; } }));
    expect((output as ContentOutput).content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('toolgate cannot relay roots/list to the client that made this call') });
    expect(asked).toEqual([]);
    expect(logged).toContainEqual(['mcp.upstream_request.refused', expect.objectContaining({ method: 'roots/list', outside_call: true })]);
  });

  it('go to the caller\'s client when it can answer (the hook the MCP face sets)', async () => {
    const asked: unknown[] = [];
    const output = await (await executorFor('ask_model')).execute({}, context({ ask_client: async (request) => { asked.push(request); return { role: 'assistant', content: { type: 'text', text: 'a summary' }, model: 'm' }; } }));
    expect(asked).toEqual([{ method: 'sampling/createMessage', params: expect.objectContaining({ maxTokens: 10 }) }]);
    expect((output as ContentOutput).content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('a summary') });
  });
});

describe('notifications during a call', () => {
  it('progress (under the caller\'s own token) and log messages at the caller\'s level reach a listener', async () => {
    const heard: ToolNotification[] = [];
    await (await executorFor('report')).execute({}, context({ notify: (n) => heard.push(n), progress_token: 42, log_level: 'info' }));
    expect(heard).toEqual([
      ...[1, 2, 3].map((progress) => ({ method: 'notifications/progress', params: { progressToken: 42, progress, total: 3 } })),
      { method: 'notifications/message', params: { level: 'info', logger: 'crm', data: 'indexed 3 contacts' } },
    ]);
  });

  it('log messages below the caller\'s level, or when it asked for none, do not reach the listener: they are dropped and counted', async () => {
    for (const log_level of ['warning', undefined]) {
      const heard: ToolNotification[] = [];
      const logged: Array<[string, Record<string, unknown>]> = [];
      await (await executorFor('report')).execute({}, context({ notify: (n) => heard.push(n), progress_token: 7, ...(log_level ? { log_level } : {}), log: (event, fields) => logged.push([event, fields]) }));
      expect(heard.map((n) => n.method)).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress']);
      expect(logged).toEqual([['mcp.notifications.dropped', expect.objectContaining({ count: 1, by_method: { 'notifications/message': 1 } })]]);
    }
  });

  it('without a listener nothing asks for progress, and what comes anyway is dropped and counted in the log', async () => {
    const logged: Array<[string, Record<string, unknown>]> = [];
    const output = await (await executorFor('report')).execute({}, context({ progress_token: 'unheard', log: (event, fields) => logged.push([event, fields]) }));
    expect((output as ContentOutput).content).toEqual([{ type: 'text', text: 'report done' }]);
    const call = upstream.messages.find((m) => m.method === 'tools/call')!;
    expect((call.params?._meta as Record<string, unknown> | undefined)?.progressToken).toBeUndefined();
    expect(logged).toEqual([['mcp.notifications.dropped', { call_id: 'c1', tenant: 'acme', tool: 'report', upstream: upstream.url, count: 1, by_method: { 'notifications/message': 1 } }]]);
  });
});
