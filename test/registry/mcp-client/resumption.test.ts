/**
 * Issue 23: an upstream that closes a call's event stream mid-call (SEP-1699 polling, as the
 * conformance suite's `test_reconnection` does) gets the call back: toolgate's upstream client
 * reconnects with GET and `Last-Event-ID` after the server's `retry` (capped), and hands the
 * resumed events to the same call. One that will not resume fails the call with words, within
 * its timeout, and never loops. Real HTTP on 127.0.0.1.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallFailure } from '../../../lib/dispatch/call.ts';
import { executeStage } from '../../../lib/dispatch/stages/execute.ts';
import { defineTool } from '../../../lib/registry/definition.ts';
import type { ToolNotification } from '../../../lib/registry/executor.ts';
import { McpToolExecutor } from '../../../lib/registry/executors/mcp.ts';
import { McpSessionPool } from '../../../lib/registry/executors/mcp-session-pool.ts';
import { MAX_RECONNECTS, MAX_RETRY_MS } from '../../../lib/registry/mcp-client/resumption.ts';
import { startTestServer, type RecordedRequest, type TestServer } from '../../helpers/http-server.ts';

const SESSION = 'sess-7';
const SSE = { 'content-type': 'text/event-stream', 'mcp-session-id': SESSION };

let server: TestServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

const event = (id: string | undefined, message: unknown) => `${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
const log = (data: string) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
const answer = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

/**
 * A legacy upstream with a session: initialize and notifications as any server answers them,
 * `tools/call` opened with `onCall` (its request id), and each GET handed to `onGet` (with the
 * id of the call it resumes).
 */
async function upstream(onCall: (id: number, response: ServerResponse) => void, onGet: (request: RecordedRequest, callId: number, response: ServerResponse) => void): Promise<string> {
  let callId = 0;
  server = await startTestServer((request, response) => {
    if (request.method === 'GET') return onGet(request, callId, response);
    if (request.method === 'DELETE') return void response.writeHead(200).end();
    const message = JSON.parse(request.body || '{}') as { id?: number; method?: string };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'tools/call') {
      callId = message.id;
      return onCall(message.id, response);
    }
    response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } } }));
  });
  return `${server.url}/mcp`;
}

const gets = () => server!.requests.filter((r) => r.method === 'GET');

/** The call as the pipeline runs it (its timeout included): the result's text, or its failure. */
async function call(url: string, timeoutMs = 10_000, protocol?: string): Promise<{ text?: string; error?: CallFailure; heard: string[] }> {
  const heard: string[] = [];
  const config = { url, tool: 'poll', headers: { authorization: 'Bearer upstream-key' }, ...(protocol ? { protocol } : {}) };
  const executor = new McpToolExecutor(defineTool({ name: 'poll', tier: 'write' }), config, { pool: new McpSessionPool(), fetch: (input, init) => fetch(input, init) });
  const notify = (n: ToolNotification) => heard.push(String(n.params.data));
  const outcome = await executeStage(executor, {}, { call_id: 'c', thread_id: 't', tenant: 'acme', principal: 'p', env: {}, notify, log_level: 'debug' }, timeoutMs);
  return outcome.ok ? { text: outcome.value.text, heard } : { error: outcome.failure, heard };
}

describe('an upstream that closes the call’s event stream before the answer', () => {
  it('is reconnected to with GET and Last-Event-ID (and the session), and the resumed events reach the same call', async () => {
    const url = await upstream(
      (id, response) => response.writeHead(200, SSE).end(`id: call-1\nretry: 20\ndata: \n\n${event('call-2', log('before the close'))}`),
      (request, id, response) => {
        // Only what followed the last event the client saw.
        if (request.headers['last-event-id'] !== 'call-2') return void response.writeHead(400).end('wrong Last-Event-ID');
        response.writeHead(200, SSE).end(`${event('call-3', log('after the close'))}${event('call-4', answer(id, 'resumed answer'))}`);
      },
    );
    const { text, error, heard } = await call(url);
    expect(error).toBeUndefined();
    expect(text).toContain('resumed answer');
    expect(heard).toEqual(['before the close', 'after the close']);
    expect(gets()).toHaveLength(1);
    expect(gets()[0]!.headers).toMatchObject({ 'last-event-id': 'call-2', 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25', authorization: 'Bearer upstream-key', accept: 'text/event-stream' });
  });

  it('that breaks (the connection dropped, not closed) is resumed the same way', async () => {
    const url = await upstream(
      (_id, response) => {
        response.writeHead(200, SSE).write('id: d1\nretry: 10\ndata: \n\n', () => setTimeout(() => response.socket?.destroy(), 20));
      },
      (request, id, response) => response.writeHead(200, SSE).end(event('d2', answer(id, `resumed after ${String(request.headers['last-event-id'])}`))),
    );
    const { text, error } = await call(url);
    expect(error).toBeUndefined();
    expect(text).toContain('resumed after d1');
  });

  it('is resumed again each time it closes, while it keeps answering, up to the cap', async () => {
    let round = 0;
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end('id: r0\nretry: 0\ndata: \n\n'),
      (_request, id, response) => {
        round++;
        response.writeHead(200, SSE).end(round < MAX_RECONNECTS ? `id: r${round}\ndata: \n\n` : event(`r${round}`, answer(id, `answered on reconnection ${round}`)));
      },
    );
    const { text } = await call(url);
    expect(text).toContain(`answered on reconnection ${MAX_RECONNECTS}`);
    expect(gets().map((r) => r.headers['last-event-id'])).toEqual(Array.from({ length: MAX_RECONNECTS }, (_, i) => `r${i}`));
  });

  it('that keeps closing without the answer fails the call, saying so, after MAX_RECONNECTS reconnections: no loop', async () => {
    let round = 0;
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end('id: x0\nretry: 0\ndata: \n\n'),
      (_request, _id, response) => response.writeHead(200, SSE).end(`id: x${++round}\nretry: 0\ndata: \n\n`),
    );
    const { error } = await call(url);
    expect(error).toMatchObject({ code: 'error', details: { uncertain: true } });
    expect(error!.message).toContain(`its event stream closed ${MAX_RECONNECTS + 1} times before the answer came; toolgate stopped reconnecting to it`);
    expect(error!.message).toContain('it may have run');
    expect(gets()).toHaveLength(MAX_RECONNECTS);
  });

  it('that refuses the reconnection (405) fails the call at once with its words; the tool may have run (never "nothing ran")', async () => {
    for (const status of [405, 404]) {
      await server?.close();
      const url = await upstream(
        (_id, response) => response.writeHead(200, SSE).end('id: a1\nretry: 10\ndata: \n\n'),
        (_request, _id, response) => response.writeHead(status, { 'content-type': 'text/plain' }).end('no stream here'),
      );
      const { error } = await call(url);
      expect(error).toMatchObject({ code: 'error', details: { uncertain: true } });
      expect(error!.message).toContain(`(its event stream closed before the answer came, and resuming it (GET with Last-Event-ID) failed: HTTP ${status}: no stream here); it may have run`);
      // A 404 on the resumption is not "session gone": the call is not sent again in a new session.
      expect(server!.requests.filter((r) => r.body.includes('tools/call'))).toHaveLength(1);
    }
  });

  it('that never resumes (the GET stream stays silent) fails within the call’s timeout', async () => {
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end('id: s1\nretry: 10\ndata: \n\n'),
      (_request, _id, response) => void response.writeHead(200, SSE).write(': waiting\n\n'),
    );
    const { error } = await call(url, 1_000);
    expect(error).toMatchObject({ code: 'timeout', message: 'Tool `poll` timed out after 1000 ms and was cancelled.' });
    expect(gets()).toHaveLength(1);
  });

  it('asking to wait hours (retry) is waited at most MAX_RETRY_MS: the answer still comes within the call’s timeout', async () => {
    expect(MAX_RETRY_MS).toBeLessThan(10_000);
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end(`id: h1\nretry: ${3 * 3600 * 1000}\ndata: \n\n`),
      (_request, id, response) => response.writeHead(200, SSE).end(event('h2', answer(id, 'after a capped wait'))),
    );
    const { text, error } = await call(url, MAX_RETRY_MS + 10_000);
    expect(error).toBeUndefined();
    expect(text).toContain('after a capped wait');
  }, 30_000);

  it('without an event id is not resumed: the call fails as a broken answer, as before', async () => {
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end(`retry: 10\n${event(undefined, log('no ids here'))}`),
      (_request, _id, response) => response.writeHead(500).end(),
    );
    const { error, heard } = await call(url);
    expect(error!.message).toContain('(the connection closed before the answer came); it may have run');
    expect(heard).toEqual(['no ids here']);
    expect(gets()).toHaveLength(0);
  });

  it('of a 2026-07-28 upstream is not resumed: that revision has no event ids or Last-Event-ID', async () => {
    const url = await upstream(
      (_id, response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: m1\nretry: 10\ndata: \n\n'),
      (_request, id, response) => response.writeHead(200, SSE).end(event('m2', answer(id, 'should not be asked for'))),
    );
    const { error } = await call(url, 10_000, '2026-07-28');
    expect(error!.message).toContain('(the connection closed before the answer came); it may have run');
    expect(gets()).toHaveLength(0);
  });

  it('whose id cannot go back as a header (too long, control characters) is not resumed', async () => {
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end(`id: ok-1\ndata: \n\nid: ${'x'.repeat(300)}\nretry: 10\ndata: \n\n`),
      (_request, _id, response) => response.writeHead(500).end(),
    );
    const { error } = await call(url);
    expect(error!.message).toContain('(the connection closed before the answer came)');
    expect(gets()).toHaveLength(0);
  });

  it('whose resumed stream passes the answer cap is cut off: the cap counts every connection of the stream', async () => {
    const chunk = `id: big\ndata: ${JSON.stringify(log('y'.repeat(1 << 20)))}\n\n`;
    const url = await upstream(
      (_id, response) => response.writeHead(200, SSE).end(`retry: 0\n${chunk.repeat(10)}`),
      (_request, _id, response) => response.writeHead(200, SSE).end(chunk.repeat(10)),
    );
    const { error } = await call(url);
    expect(error!.message).toContain('the answer is larger than');
    expect(gets().length).toBeGreaterThan(0);
    expect(gets().length).toBeLessThan(3);
  });
});
