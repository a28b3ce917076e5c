import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseManifest } from '../helpers/manifests.ts';
import { startFeatureUpstream } from '../helpers/mcp-feature-upstream.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

/**
 * An upstream MCP tool called from the Worker inside workerd: the SDK client runs on fetch
 * alone, and the client kept between requests still works in the next one.
 */
describe('MCP executor in workerd', () => {
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'test-build-'));
  let mf: Miniflare;
  let upstream: McpUpstream;

  beforeAll(async () => {
    upstream = await startMcpUpstream();
    const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
    const build = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
    if (build.code !== 0) throw new Error(`wrangler build failed:\n${build.stdout}\n${build.stderr}`);
    mf = new Miniflare({ modules: true, scriptPath: join(outDir, 'worker.js'), compatibilityDate: '2026-04-01', bindings: {
        TOOLGATE_DEMO_KEY: 'mcp-worker-agent-key', TOOLGATE_DEMO_ADMIN_KEY: 'mcp-worker-key', TOOLGATE_STORE: 'memory', CRM_MCP_TOKEN: 'Bearer upstream-token',
        // The operator grants the demo tenant its secrets and allows the upstream on loopback.
        TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET,CRM_MCP_TOKEN', TOOLGATE_EGRESS_ALLOW: '127.0.0.1',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
    await upstream?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  const send = async (path: string, body?: unknown) => {
    const response = await mf.dispatchFetch(`http://worker${path}`, { method: 'POST', headers: { authorization: 'Bearer mcp-worker-key', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const dispatch = async (call_id: string, args: unknown) => ((await send('/v1/dispatch', { thread_id: 'w', calls: [{ call_id, name: 'crm_search', arguments: args }] })).body.results as Array<Record<string, unknown>>)[0];

  const searchTool = () => ({
    name: 'crm_search', description: 'Searches contacts.', tier: 'read', timeout_ms: 1000,
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    executor: { kind: 'mcp', url: upstream.secureUrl, tool: 'search', headers: { Authorization: 'env:CRM_MCP_TOKEN' } },
  });

  it('calls a pinned upstream tool across requests, and after the upstream forgets the session', async () => {
    const tool = searchTool();
    expect((await send('/v1/admin/manifests', baseManifest({ tenant: 'demo', version: 'mcp-1', tools: [tool] }))).status).toBe(201);
    expect((await send('/v1/admin/manifests/mcp-1/activate')).status).toBe(200);

    expect(await dispatch('a', { query: 'ada' })).toMatchObject({ status: 'ok', content: '2 contacts match "ada"\nAda, Grace' });
    expect(await dispatch('b', { query: 'grace' })).toMatchObject({ status: 'ok' });
    expect(upstream.initializations).toBe(1);
    upstream.forgetSessions();
    expect(await dispatch('c', { query: 'again' })).toMatchObject({ status: 'ok' });
    expect(upstream.initializations).toBe(2);
    expect(await dispatch('d', { query: 'slow' })).toMatchObject({ status: 'timeout' });
    expect(await dispatch('e', { query: 'boom' })).toMatchObject({ status: 'error', content: expect.stringContaining('the search index is rebuilding') });
  });

  it('serves MCP 2026-07-28 to the SDK v2 client pinned to it, and the older revisions beside it', async () => {
    const fetchWorker = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const body = request.method === 'POST' ? await request.text() : undefined;
      const answer = await mf.dispatchFetch(request.url, { method: request.method, headers: Object.fromEntries(request.headers), body });
      return new Response(answer.status === 202 ? null : await answer.text(), { status: answer.status, headers: Object.fromEntries(answer.headers) });
    };
    const transport = new StreamableHTTPClientTransport(new URL('http://worker/mcp'), { requestInit: { headers: { authorization: 'Bearer mcp-worker-agent-key' } }, fetch: fetchWorker });
    const client = new Client({ name: 'v2-in-workerd', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('crm_search');
    expect(await client.callTool({ name: 'crm_search', arguments: { query: 'ada' } })).toMatchObject({ isError: false, content: [{ type: 'text', text: '2 contacts match "ada"' }, { type: 'text', text: 'Ada, Grace' }] });
    await client.close();
    const legacy = await mf.dispatchFetch('http://worker/mcp', { method: 'POST', headers: { authorization: 'Bearer mcp-worker-agent-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
    expect(await legacy.json()).toMatchObject({ result: { protocolVersion: '2025-06-18', serverInfo: { name: 'toolgate' } } });
    // The legacy session's id carries what the client declared (no state in the isolate): it is taken back, an unknown one is 404.
    const session = legacy.headers.get('mcp-session-id');
    expect(session).toMatch(/^tgsn_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const inSession = (id: string) => mf.dispatchFetch('http://worker/mcp', { method: 'POST', headers: { authorization: 'Bearer mcp-worker-agent-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    const listed = await inSession(session!);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'crm_search' })]) } });
    const unknown = await inSession('tgsn_bogus');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32001 }, id: 2 });
  });

  it('relays an upstream tool\'s progress and log messages to the MCP client on the call\'s event stream', async () => {
    upstream.tools = [...upstream.tools, {
      tool: { name: 'report', description: 'Reports progress and logs.', inputSchema: { type: 'object', properties: {} } },
      async run(_args, { meta, notify }) {
        for (let progress = 1; progress <= 3; progress++) await notify('notifications/progress', { progressToken: meta.progressToken as string, progress, total: 3 });
        await notify('notifications/message', { level: 'info', data: 'indexed' });
        return { content: [{ type: 'text', text: 'report done' }] };
      },
    }];
    const report = { ...searchTool(), name: 'crm_report', description: 'Reports.', input_schema: { type: 'object', properties: {} }, executor: { ...searchTool().executor, tool: 'report' } };
    expect((await send('/v1/admin/manifests', baseManifest({ tenant: 'demo', version: 'mcp-2', tools: [searchTool(), report] }))).status).toBe(201);
    expect((await send('/v1/admin/manifests/mcp-2/activate')).status).toBe(200);
    const response = await mf.dispatchFetch('http://worker/mcp', {
      method: 'POST',
      headers: { authorization: 'Bearer mcp-worker-agent-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'crm_report', arguments: {}, _meta: { progressToken: 'w-1' } } }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const messages = (await response.text()).split('\n\n').filter((block) => block.startsWith('event: message\ndata: ')).map((block) => JSON.parse(block.slice('event: message\ndata: '.length)));
    expect(messages).toEqual([
      ...[1, 2, 3].map((progress) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'w-1', progress, total: 3 } })),
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'indexed' } },
      expect.objectContaining({ id: 1, result: expect.objectContaining({ isError: false, content: [{ type: 'text', text: 'report done' }] }) }),
    ]);
  });

  it('resumes a 2025-11-25 call\'s event stream its client dropped: the call runs on, and GET + Last-Event-ID gets its answer', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    upstream.tools = [...upstream.tools, {
      tool: { name: 'save_gated', description: 'Saves once the test lets it.', inputSchema: { type: 'object', properties: {} } },
      async run() {
        await gate;
        return { content: [{ type: 'text', text: 'saved' }] };
      },
    }];
    const save = { ...searchTool(), name: 'crm_save', description: 'Saves.', tier: 'write', timeout_ms: 20_000, input_schema: { type: 'object', properties: {} }, executor: { ...searchTool().executor, tool: 'save_gated' } };
    expect((await send('/v1/admin/manifests', baseManifest({ tenant: 'demo', version: 'mcp-4', tools: [searchTool(), save] }))).status).toBe(201);
    expect((await send('/v1/admin/manifests/mcp-4/activate')).status).toBe(200);
    const headers = { authorization: 'Bearer mcp-worker-agent-key', accept: 'application/json, text/event-stream' };
    const response = await mf.dispatchFetch('http://worker/mcp', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'w-9', method: 'tools/call', params: { name: 'crm_save', arguments: {} } }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value, { stream: true });
    const lastEventId = /^id: (\S+)\nretry: 3000\ndata:\n\n/.exec(text)?.[1];
    expect(lastEventId).toMatch(/^tg1\.[\w-]+\.0$/);
    await reader.cancel();
    open();
    const resumed = await mf.dispatchFetch('http://worker/mcp', { headers: { ...headers, 'last-event-id': lastEventId! } });
    expect(resumed.status).toBe(200);
    const answer = (await resumed.text()).split('\n\n').find((block) => block.includes('"result"'))!;
    expect(answer.startsWith(`id: ${lastEventId!.slice(0, -2)}.end\n`)).toBe(true);
    expect(JSON.parse(answer.slice(answer.indexOf('data: ') + 'data: '.length))).toMatchObject({ id: 'w-9', result: { isError: false, content: [{ type: 'text', text: 'saved' }] } });
  });

  it('reads a pinned upstream resource and gets a pinned prompt through the Worker', async () => {
    const docs = await startFeatureUpstream();
    try {
      const source = { kind: 'mcp', server: 'docs', url: docs.url, protocol: '2025-11-25' };
      const manifest = { ...baseManifest({ tenant: 'demo', version: 'mcp-3', tools: [searchTool()] }), resources: [{ uri: 'docs://readme', name: 'readme', source }], prompts: [{ name: 'plain', source: { ...source, prompt: 'plain' } }] };
      expect((await send('/v1/admin/manifests', manifest)).status).toBe(201);
      expect((await send('/v1/admin/manifests/mcp-3/activate')).status).toBe(200);
      const ask = async (method: string, params: Record<string, unknown>) => {
        const response = await mf.dispatchFetch('http://worker/mcp', { method: 'POST', headers: { authorization: 'Bearer mcp-worker-agent-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
        return (await response.json()) as { result?: unknown; error?: unknown };
      };
      expect(await ask('resources/read', { uri: 'docs://readme' })).toMatchObject({ result: { contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Docs\nHello.' }] } });
      expect(await ask('prompts/get', { name: 'plain' })).toMatchObject({ result: { messages: [{ role: 'user', content: { type: 'text', text: 'Plain.' } }] } });
      expect(docs.reads).toEqual(['docs://readme']);
    } finally {
      await docs.close();
    }
  });
});
