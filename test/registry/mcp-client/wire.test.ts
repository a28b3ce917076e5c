/**
 * The upstream client's wire: event streams parsed as the standard says whatever the chunking,
 * answers capped, and every way an answer can go wrong classified as the call's outcome
 * (refused: it never ran; broken off: it may have run).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../../lib/registry/definition.ts';
import { ToolError } from '../../../lib/registry/errors.ts';
import { McpToolExecutor } from '../../../lib/registry/executors/mcp.ts';
import { McpSessionPool } from '../../../lib/registry/executors/mcp-session-pool.ts';
import { eventData, type StreamCursor } from '../../../lib/registry/mcp-client/sse.ts';
import { startTestServer, type TestServer } from '../../helpers/http-server.ts';

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({ start(controller) { for (const chunk of chunks) controller.enqueue(encoder.encode(chunk)); controller.close(); } });
}

async function events(chunks: string[], maxBytes = 1 << 20): Promise<string[]> {
  const out: string[] = [];
  for await (const data of eventData(stream(chunks), maxBytes)) out.push(data);
  return out;
}

describe('event streams', () => {
  it('split lines at LF, CR and CRLF (even across chunks), join data lines, skip comments, other events and events without data', async () => {
    const text = ': keep-alive\r\nid: 1\r\ndata:\r\n\r\nevent: message\ndata: {"a":\ndata: 1}\n\nevent: ping\ndata: x\n\rdata: last\r\r';
    expect(await events([text])).toEqual(['{"a":\n1}', 'last']);
    // The same stream cut at every position, the CRLFs included.
    for (let cut = 1; cut < text.length; cut++) expect(await events([text.slice(0, cut), text.slice(cut)])).toEqual(['{"a":\n1}', 'last']);
  });

  it('follow their event ids (a priming event without data included) and retry, for resumption', async () => {
    const cursor: StreamCursor = { bytesRead: 0 };
    const read = async (text: string) => { const out: string[] = []; for await (const data of eventData(stream([text]), 1 << 20, cursor)) out.push(data); return out; };
    expect(await read('id: p-1\nretry: 250\ndata:\n\n')).toEqual([]);
    expect(cursor).toMatchObject({ lastEventId: 'p-1', retryMs: 250 });
    // An id holds until the next one; a retry that is not digits is ignored; an id with NUL is ignored.
    expect(await read('data: a\n\nretry: 1e9\nid: x\u0000y\ndata: b\n\n')).toEqual(['a', 'b']);
    expect(cursor).toMatchObject({ lastEventId: 'p-1', retryMs: 250 });
    // An empty id resets it (nothing to resume from), and so does one that cannot go back as a header.
    await read('id:\ndata: c\n\n');
    expect(cursor.lastEventId).toBeUndefined();
    await read('id: p-2\n\nid: caf\u00e9\n\n');
    expect(cursor.lastEventId).toBeUndefined();
  });

  it('stop at their byte cap', async () => {
    await expect(events(['data: 1\n\n', `data: ${'x'.repeat(100)}\n\n`], 50)).rejects.toThrow('the answer is larger than');
  });
});

let server: TestServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

/** An upstream scripted per JSON-RPC method; initialize and notifications are answered as any server would. */
async function upstreamAnswering(tools: (id: number, response: import('node:http').ServerResponse) => void): Promise<string> {
  server = await startTestServer((request, response) => {
    const message = JSON.parse(request.body || '{}') as { id?: number; method?: string };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'tools/call') return tools(message.id, response);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }));
  });
  return `${server.url}/mcp`;
}

async function callOn(url: string): Promise<ToolError> {
  const executor = new McpToolExecutor(defineTool({ name: 'pay', tier: 'write' }), { url, tool: 'pay' }, { pool: new McpSessionPool(), fetch: (input, init) => fetch(input, init) });
  const error = await executor.execute({}, { signal: AbortSignal.timeout(5000), call_id: 'c', thread_id: 't', tenant: 'acme', principal: 'p', env: {} }).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('a tools/call answer that goes wrong', () => {
  it('an event stream that ends before the answer: the tool may have run', async () => {
    const url = await upstreamAnswering((_id, response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"starting"}}\n\n'));
    const error = await callOn(url);
    expect(error).toMatchObject({ code: 'error', details: { uncertain: true } });
    expect(error.message).toBe(`upstream MCP server at ${url} did not complete tools/call "pay" (the connection closed before the answer came); it may have run: check its effect before calling again under a new call id`);
  });

  it('an event that is not JSON-RPC: the tool may have run', async () => {
    const url = await upstreamAnswering((_id, response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"hello": "world"}\n\n'));
    expect(await callOn(url)).toMatchObject({ code: 'error', message: expect.stringContaining('(an event of its answer is not a JSON-RPC message); it may have run'), details: { uncertain: true } });
  });

  it('a JSON answer that is not JSON-RPC: not an MCP server, nothing ran', async () => {
    const url = await upstreamAnswering((_id, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status": "ok"}'));
    expect(await callOn(url)).toMatchObject({ code: 'unavailable', message: `upstream MCP server at ${url} is unavailable: it answered with something other than MCP (its answer is not a JSON-RPC message)` });
  });

  it('a 5xx: the tool may have run; a JSON-RPC error in a 4xx answer: refused, with its words', async () => {
    const url = await upstreamAnswering((_id, response) => response.writeHead(502).end('bad gateway'));
    expect(await callOn(url)).toMatchObject({ code: 'error', message: expect.stringContaining('(it answered HTTP 502: bad gateway); it may have run'), details: { uncertain: true } });
    await server?.close();
    const refusing = await upstreamAnswering((id, response) => response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'MCP error -32602: amount must be positive' } })));
    expect(await callOn(refusing)).toMatchObject({ code: 'error', message: `upstream MCP server at ${refusing} refused tools/call "pay" (JSON-RPC error -32602): amount must be positive`, details: { mcp_error_code: -32602 } });
  });
});
