import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { CONTENT_PARTS_MEDIA_TYPE } from '../../lib/registry/executors/http.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { importMcpTools } from '../../lib/registry/mcp-upstream/import.ts';
import { PNG_1X1 } from '../helpers/content.ts';
import { testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream, type UpstreamTool } from '../helpers/mcp-upstream.ts';

const SHOT_SCHEMA = { type: 'object' as const, properties: { width: { type: 'integer' }, height: { type: 'integer' } }, required: ['width', 'height'] };
const PNG_SHA256 = createHash('sha256').update(Buffer.from(PNG_1X1, 'base64')).digest('hex');
/** Random bytes after a PNG signature: a screenshot-sized image that does not compress. */
const bigPng = (bytes: number) => Buffer.concat([Buffer.from(PNG_1X1, 'base64').subarray(0, 8), Buffer.from(Array.from({ length: bytes - 8 }, (_, i) => (i * 7919) % 251))]).toString('base64');

/** Tools a browser-like upstream publishes: a screenshot with structured content, a hostile one, and a write tool answering an image. */
const browserTools: UpstreamTool[] = [
  {
    tool: { name: 'screenshot', description: 'Takes a screenshot.', inputSchema: { type: 'object', properties: {} }, outputSchema: SHOT_SCHEMA },
    run: () => ({ content: [{ type: 'text', text: 'the page' }, { type: 'image', data: PNG_1X1, mimeType: 'image/png' }], structuredContent: { width: 1, height: 1 } }),
  },
  {
    tool: { name: 'hostile', description: 'Answers badly.', inputSchema: { type: 'object', properties: {} } },
    run: () => ({
      content: [
        { type: 'image', data: 'A'.repeat(6 * 1024 * 1024), mimeType: 'image/png' },
        { type: 'image', data: Buffer.from('<html><script>x()</script></html>').toString('base64'), mimeType: 'text/html' },
        ...Array.from({ length: 3000 }, (_, i) => ({ type: 'text' as const, text: `row ${i}` })),
      ],
    }),
  },
  {
    tool: { name: 'snap', description: 'Saves and returns a snapshot.', inputSchema: { type: 'object', properties: { big: { type: 'boolean' } } } },
    run: (args) => ({ content: [{ type: 'text', text: 'saved' }, { type: 'image', data: args.big ? bigPng(300 * 1024) : PNG_1X1, mimeType: 'image/png' }] }),
  },
];

let upstream: McpUpstream;
let renderer: TestServer;
/** What the http tool answers next. */
let rendered: { type: string; body: string };

beforeEach(async () => {
  upstream = await startMcpUpstream();
  upstream.tools = browserTools;
  renderer = await startTestServer((_req, res) => { res.writeHead(200, { 'content-type': rendered.type }); res.end(rendered.body); });
});
afterEach(async () => { await upstream.close(); await renderer.close(); });
afterAll(() => sharedMcpSessionPool.clear());

async function gateway() {
  const manifest = validManifest({
    policy: { read: 'grant', write: 'grant', execute: 'review' },
    mcp_imports: [{ server: 'web', url: upstream.url, tools: 'all', tiers: { screenshot: 'read', hostile: 'read' } }],
    tools: [
      { name: 'render', description: 'Renders a chart.', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${renderer.url}/render`, secret: 'env:RENDER_SECRET' } },
      { name: 'browser_shot', description: 'A screenshot the client takes.', tier: 'write', input_schema: { type: 'object' }, executor: { kind: 'client' } },
    ],
  });
  const pinned: Manifest = validManifest(await importMcpTools(manifest, {}));
  const gw = await testGateway([pinned], { agent: { tenant: 'acme', principal: 'agent', scopes: ['audit:read'] } }, { env: { RENDER_SECRET: 's', TOOLGATE_TENANT_SECRETS: 'acme:RENDER_SECRET' }, egressTransport: nodeEgressTransport() });
  return { gw, pinned };
}
type Gateway = Awaited<ReturnType<typeof gateway>>['gw'];

async function dispatch(gw: Gateway, body: Record<string, unknown>): Promise<{ results: ToolResult[]; messages?: unknown[] }> {
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', ...body } });
  expect(response.status).toBe(200);
  return response.json();
}
const callOne = async (gw: Gateway, name: string, args: unknown = {}, call_id = 'c1') => (await dispatch(gw, { calls: [{ call_id, name, arguments: args }] })).results[0]!;
const imagePart = { type: 'image', data: PNG_1X1, mimeType: 'image/png' };

describe('content parts from an upstream MCP tool', () => {
  it('pins outputSchema, and answers the image and structured content in toolgate\'s own results', async () => {
    const { gw, pinned } = await gateway();
    expect(pinned.tools.find((t) => t.name === 'screenshot')?.output_schema).toEqual(SHOT_SCHEMA);
    expect(await callOne(gw, 'screenshot')).toMatchObject({
      status: 'ok',
      content: 'the page\n[image/png image, 70 bytes base64]',
      content_parts: [{ type: 'text', text: 'the page' }, imagePart],
      structured_content: { width: 1, height: 1 },
    });
  });

  it('gives each provider format the richest shape it takes', async () => {
    const { gw } = await gateway();
    const anthropic = await dispatch(gw, { format: 'anthropic', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] });
    expect(anthropic.messages).toEqual([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: false, content: [{ type: 'text', text: 'the page' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } }] }] }]);
    const openai = await dispatch(gw, { format: 'openai', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] });
    expect(openai.messages).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: 'the page\n[image/png image, 70 bytes base64] [not sent: chat-completions tool messages carry text only]' }]);
    const responses = await dispatch(gw, { format: 'responses', output: [{ type: 'function_call', call_id: 'fc_1', name: 'screenshot', arguments: '{}' }] });
    expect(responses.messages).toEqual([{ type: 'function_call_output', call_id: 'fc_1', output: [{ type: 'input_text', text: 'the page' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG_1X1}` }] }]);
    const gemini = await dispatch(gw, { format: 'gemini', parts: [{ functionCall: { id: 'g1', name: 'screenshot', args: {} } }] });
    expect(gemini.messages).toEqual([{ role: 'user', parts: [{ functionResponse: { id: 'g1', name: 'screenshot', response: { output: 'the page\n[image/png image, 70 bytes base64] [not sent: function responses carry text only here]' } } }] }]);
  });

  it('through /mcp: outputSchema in tools/list, image blocks and structuredContent in the result (the SDK client checks it against the schema)', async () => {
    const { gw } = await gateway();
    const transport = new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), { requestInit: { headers: { authorization: 'Bearer agent' } }, fetch: async (input, init) => gw.app.fetch(new Request(input, init)) });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'screenshot')?.outputSchema).toEqual(SHOT_SCHEMA);
      const result = await client.callTool({ name: 'screenshot', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'the page' }, imagePart]);
      expect(result.structuredContent).toEqual({ width: 1, height: 1 });
      expect(result.isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('audits the image as its SHA-256 and size, never its bytes', async () => {
    const { gw } = await gateway();
    await callOne(gw, 'snap', {}, 'snap-1');
    const { envelopes } = (await (await gw.request('/v1/audit?thread_id=th', { key: 'agent' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    const result = envelopes.find((e) => e.type === 'tool.call.result')!;
    expect(result.data.content_parts).toEqual([{ type: 'text', chars: 5 }, { type: 'image', mimeType: 'image/png', bytes: 70, sha256: PNG_SHA256 }]);
    expect(JSON.stringify(envelopes)).not.toContain(PNG_1X1);
  });

  it('replays a stored result with its parts; an image too big to store comes back as a note', async () => {
    const { gw } = await gateway();
    const first = await callOne(gw, 'snap', {}, 'snap-1');
    const again = await callOne(gw, 'snap', {}, 'snap-1');
    expect(again).toMatchObject({ replayed: true, content_parts: [{ type: 'text', text: 'saved' }, imagePart] });
    expect(again.content).toBe(first.content);
    const big = await callOne(gw, 'snap', { big: true }, 'snap-2');
    expect((big.content_parts![1] as { data: string }).data).toHaveLength(Math.ceil((300 * 1024) / 3) * 4);
    const bigAgain = await callOne(gw, 'snap', { big: true }, 'snap-2');
    expect(bigAgain.replayed).toBe(true);
    expect(bigAgain.content_parts![1]).toEqual({ type: 'text', text: '[image/png image, 307200 bytes base64] [not kept for replay: a stored result keeps at most 128 KiB of binary content; call the tool again to get it]' });
    expect(upstream.calls.filter((c) => c.name === 'snap')).toHaveLength(2);
  });

  // (The SDK refuses invalid base64 at both ends of MCP; an http tool's is checked below.)
  it('survives a hostile upstream: a huge image, HTML called an image and thousands of parts become notes', async () => {
    const { gw } = await gateway();
    const result = await callOne(gw, 'hostile');
    expect(result.status).toBe('ok');
    expect(result.truncated).toBe(true);
    // Nothing but text is left, so the result is text: the notes first, the rows, the count note last.
    expect(result.content_parts).toBeUndefined();
    const lines = result.content.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `[image/png image part dropped: ${(6 * 1024 * 1024 * 3) / 4} bytes, more than the 4 MiB a part may hold]`,
      '[text/html image part dropped: "text/html" is not an image media type]',
      'row 0',
    ]);
    expect(lines).toHaveLength(257);
    expect(lines.at(-1)).toBe('[2746 more content parts dropped: a result holds at most 256]');
  });
});

describe('content parts from an http tool', () => {
  it(`reads a ${CONTENT_PARTS_MEDIA_TYPE} answer as content parts`, async () => {
    const { gw } = await gateway();
    rendered = { type: `${CONTENT_PARTS_MEDIA_TYPE}; charset=utf-8`, body: JSON.stringify({ content: [{ type: 'text', text: 'chart' }, imagePart], structuredContent: { points: 3 } }) };
    expect(await callOne(gw, 'render')).toMatchObject({ status: 'ok', content_parts: [{ type: 'text', text: 'chart' }, imagePart], structured_content: { points: 3 } });
    rendered = { type: CONTENT_PARTS_MEDIA_TYPE, body: JSON.stringify({ content: [{ type: 'text', text: 'no data for that range' }], isError: true }) };
    expect(await callOne(gw, 'render')).toMatchObject({ status: 'error', content: 'no data for that range' });
    // Plain JSON stays JSON text: only the media type makes a body content parts.
    rendered = { type: 'application/json', body: JSON.stringify({ content: [imagePart] }) };
    expect(await callOne(gw, 'render')).toMatchObject({ status: 'ok', content: JSON.stringify({ content: [imagePart] }) });
  });

  it('answers a badly shaped body with an error result that names the field, never a 500', async () => {
    const { gw } = await gateway();
    rendered = { type: CONTENT_PARTS_MEDIA_TYPE, body: JSON.stringify({ content: [{ type: 'image', data: PNG_1X1 }] }) };
    const result = await callOne(gw, 'render');
    expect(result).toMatchObject({ status: 'error', is_error: true });
    expect(result.content).toBe(`Tool \`render\` answered ${CONTENT_PARTS_MEDIA_TYPE} that toolgate cannot read: content[0].mimeType must be a string. The tool's endpoint must answer {"content": [...], "structuredContent"?, "isError"?} (MCP's CallToolResult).`);
    rendered = { type: CONTENT_PARTS_MEDIA_TYPE, body: JSON.stringify({ content: [{ type: 'image', data: 'not*base64', mimeType: 'image/png' }, imagePart] }) };
    expect(await callOne(gw, 'render')).toMatchObject({ status: 'ok', truncated: true, content_parts: [{ type: 'text', text: '[image/png image part dropped: its data is not standard base64]' }, imagePart] });
    rendered = { type: CONTENT_PARTS_MEDIA_TYPE, body: '{"content": [' };
    expect((await callOne(gw, 'render')).content).toMatch(/cannot read: the body is not JSON\./);
  });
});

describe('content parts from a client tool', () => {
  it('takes the output the client posts back, stores it for replay, and renders it in the format asked', async () => {
    const { gw } = await gateway();
    const handedOut = await callOne(gw, 'browser_shot', { url: 'https://example.com' }, 'shot-1');
    expect(handedOut.client_call).toEqual({ name: 'browser_shot', arguments: { url: 'https://example.com' } });
    const post = (body: Record<string, unknown>, call = 'shot-1') => gw.request(`/v1/calls/${call}/result`, { key: 'agent', json: { thread_id: 'th', ...body } });
    const posted = await post({ format: 'anthropic', content: [{ type: 'text', text: 'example.com' }, imagePart], structuredContent: { title: 'Example' } });
    expect(posted.status).toBe(200);
    const answer = (await posted.json()) as { result: ToolResult; messages: unknown[] };
    expect(answer.result).toMatchObject({ status: 'ok', content_parts: [{ type: 'text', text: 'example.com' }, imagePart], structured_content: { title: 'Example' } });
    expect(answer.result.client_call).toBeUndefined();
    expect(answer.messages).toEqual([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'shot-1', is_error: false, content: [{ type: 'text', text: 'example.com' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } }] }] }]);
    // A retry of the call now replays the client's output; a second post is refused.
    expect(await callOne(gw, 'browser_shot', { url: 'https://example.com' }, 'shot-1')).toMatchObject({ replayed: true, content_parts: [{ type: 'text', text: 'example.com' }, imagePart] });
    expect((await post({ content: [] })).status).toBe(409);
    const { envelopes } = (await (await gw.request('/v1/audit?thread_id=th', { key: 'agent' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    expect(envelopes.find((e) => e.type === 'tool.call.result' && e.data.via === 'client')!.data).toMatchObject({ via: 'client', content_parts: [{ type: 'text', chars: 11 }, { type: 'image', bytes: 70, sha256: PNG_SHA256 }] });
  });

  it('refuses a bad shape (400), an unknown call (404) and a call that is not a client call (409)', async () => {
    const { gw } = await gateway();
    await callOne(gw, 'browser_shot', {}, 'shot-2');
    const post = (call: string, body: Record<string, unknown>) => gw.request(`/v1/calls/${call}/result`, { key: 'agent', json: { thread_id: 'th', ...body } });
    const bad = await post('shot-2', { content: [{ type: 'image', data: 7, mimeType: 'image/png' }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'invalid_request', message: 'content[0].data must be a string' } });
    // A misnamed field is named, not dropped: structured content sent as structured_content would be lost.
    const misnamed = await post('shot-2', { content: [], structured_content: { n: 1 } });
    expect(misnamed.status).toBe(400);
    expect(await misnamed.json()).toEqual({ error: { code: 'invalid_request', message: "structured_content: unknown field; the structured content field is structuredContent (MCP's CallToolResult shape)" } });
    expect((await post('nope', { content: [] })).status).toBe(404);
    await callOne(gw, 'snap', {}, 'snap-3');
    expect((await post('snap-3', { content: [] })).status).toBe(409);
    // The hand-out is still there: a valid post still works after the refusals.
    expect((await post('shot-2', { content: [{ type: 'text', text: 'done' }] })).status).toBe(200);
  });
});
