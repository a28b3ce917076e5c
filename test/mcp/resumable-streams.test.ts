/**
 * Resumable event streams on toolgate's own legacy /mcp (SEP-1699, 2025-11-25): a `tools/call`
 * answered as an event stream to a 2025-11-25 client starts with a priming event (an id, a
 * `retry`, empty data) once the call runs, and every event after it carries an id naming the
 * call and the request. A client that lost the stream asks for the rest with GET + Last-Event-ID:
 * it gets the call's answer once the call (which outlives the dropped connection) has finished.
 * Older clients get the stream they always got. Real gateway on 127.0.0.1 (@hono/node-server),
 * real upstream MCP server, real connections dropped.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { importMcpTools } from '../../lib/registry/mcp-upstream/import.ts';
import { idempotencyKeyFor } from '../../lib/idempotency/keys.ts';
import { RESUME_WAIT_MS } from '../../lib/mcp/resume.ts';
import { MAX_WAITING_PER_PRINCIPAL } from '../../lib/limits/store-waits.ts';
import { streamOwner } from '../../lib/mcp/stream-event-id.ts';
import { serveGateway, type ServedGateway } from '../helpers/confirm-client.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

let upstream: McpUpstream;
let gw: Awaited<ReturnType<typeof testGateway>>;
let served: ServedGateway;
/** Opens the gate the upstream's slow tools wait at. */
let release: () => void;
let clockOffset = 0;

beforeEach(async () => {
  upstream = await startMcpUpstream();
  // Shut until the test opens it; open, every later call passes.
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = (name: string, answer: string) => ({
    tool: { name, description: 'Works until the test lets it finish.', inputSchema: { type: 'object' as const, properties: { n: { type: 'integer' } } } },
    async run(_args: Record<string, unknown>, { notify }: { notify(method: string, params: Record<string, unknown>): Promise<void> }) {
      await notify('notifications/message', { level: 'info', logger: 'crm', data: 'started' });
      await gate;
      return { content: [{ type: 'text' as const, text: answer }] };
    },
  });
  upstream.tools = [slow('write_slowly', 'written'), slow('read_slowly', 'read')];
  const manifest = validManifest({
    policy: { read: 'grant', write: 'grant', execute: 'deny' },
    mcp_imports: [{ server: 'crm', url: upstream.url, tools: ['write_slowly', 'read_slowly'], tiers: { write_slowly: 'write', read_slowly: 'read' }, timeout_ms: 120_000 }],
  });
  gw = await testGateway([validManifest(await importMcpTools(manifest, {}))], { agent: { tenant: 'acme', principal: 'agent' }, mallory: { tenant: 'acme', principal: 'mallory' } }, { egressTransport: nodeEgressTransport() });
  const runtime = (await gw.tenants.runtime('acme'))!;
  clockOffset = 0;
  const now = runtime.deps.now;
  runtime.deps.now = () => now() + clockOffset;
  served = await serveGateway(gw);
});
afterEach(async () => {
  release();
  await served.close();
  await upstream.close();
});
afterAll(() => sharedMcpSessionPool.clear());

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
}

/** The events of an event stream as they arrive (a block with no field but `retry` counts too). */
async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = line.slice(0, colon) as keyof SseEvent;
        event[field] = event[field] === undefined ? line.slice(colon + 1).replace(/^ /, '') : `${event[field]}\n${line.slice(colon + 1).replace(/^ /, '')}`;
      }
      yield event;
    }
  }
}

async function allEvents(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of sseEvents(response)) events.push(event);
  return events;
}

const callBody = (id: number | string, name: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

function post(name: string, options: { id?: number | string; version?: string; key?: string; signal?: AbortSignal } = {}) {
  const headers: Record<string, string> = { ...ACCEPT, authorization: `Bearer ${options.key ?? 'agent'}`, ...(options.version ? { 'mcp-protocol-version': options.version } : {}) };
  return fetch(`${served.url}/mcp`, { method: 'POST', headers, body: callBody(options.id ?? 1, name), signal: options.signal });
}

const resume = (lastEventId: string, key = 'agent', path = '/mcp') =>
  fetch(`${served.url}${path}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-03-26', 'last-event-id': lastEventId } });

/** POSTs a call, reads its priming event, and drops the connection: the id to resume from. */
async function primedThenDropped(name: string, id: number | string = 1): Promise<string> {
  const abort = new AbortController();
  const response = await post(name, { id, version: '2025-11-25', signal: abort.signal });
  const events = sseEvents(response);
  const priming = (await events.next()).value as SseEvent;
  expect(priming).toMatchObject({ data: '', retry: '3000' });
  abort.abort();
  return priming.id!;
}

describe('a 2025-11-25 client', () => {
  it('gets a priming event first (id, retry, empty data), then every event with an id of the same stream, the answer last', async () => {
    const response = await post('write_slowly', { version: '2025-11-25', id: 'req-7' });
    release();
    const events = await allEvents(response);
    expect(events[0]).toEqual({ id: expect.stringMatching(/^tg1\.[\w-]+\.0$/), retry: '3000', data: '' });
    const base = events[0].id!.slice(0, -'.0'.length);
    expect(events.slice(1).map((e) => e.id)).toEqual([`${base}.1`, `${base}.end`]);
    for (const event of events) expect(event.id!.length).toBeLessThanOrEqual(2048);
    expect(JSON.parse(events[1].data!)).toMatchObject({ method: 'notifications/message', params: { data: 'started' } });
    expect(JSON.parse(events[2].data!)).toMatchObject({ id: 'req-7', result: { content: [{ type: 'text', text: 'written' }], isError: false } });
  });

  it('that lost the stream gets the answer on GET + Last-Event-ID: the call outlived the dropped connection, ran once', async () => {
    const lastEventId = await primedThenDropped('write_slowly', 41);
    const resumed = await resume(lastEventId);
    expect(resumed.status).toBe(200);
    // The call finishes while the resumed stream waits for it.
    release();
    const events = await allEvents(resumed);
    expect(events[0]).toEqual({ retry: '3000' });
    expect(events).toHaveLength(2);
    expect(events[1].id).toBe(`${lastEventId.slice(0, -'.0'.length)}.end`);
    const answer = JSON.parse(events[1].data!);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 41, result: { content: [{ type: 'text', text: 'written' }], isError: false, _meta: { 'toolgate/status': 'ok' } } });
    // The same conversion as the POST's: not marked as a replay (the client never had it).
    expect(answer.result._meta['toolgate/replayed']).toBeUndefined();
    expect(upstream.calls.filter((c) => c.name === 'write_slowly')).toHaveLength(1);
    // Resuming after the answer: nothing more.
    expect((await resume(events[1].id!)).status).toBe(204);
  });

  it('resumes on /mcp/<tenant> too, and from a later event of the stream', async () => {
    const abort = new AbortController();
    const events = sseEvents(await post('write_slowly', { version: '2025-11-25', id: 5, signal: abort.signal }));
    await events.next();
    const notification = (await events.next()).value as SseEvent;
    expect(notification.id).toMatch(/\.1$/);
    abort.abort();
    release();
    const answer = (await allEvents(await resume(notification.id!, 'agent', '/mcp/acme'))).at(-1)!;
    expect(JSON.parse(answer.data!)).toMatchObject({ id: 5, result: { content: [{ text: 'written' }] } });
  });

  it("another principal resuming the stream's id gets 404 and nothing of the call", async () => {
    const lastEventId = await primedThenDropped('write_slowly');
    release();
    const stolen = await resume(lastEventId, 'mallory');
    expect(stolen.status).toBe(404);
    const body = await stolen.text();
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Not Found: no event stream of yours has this Last-Event-ID/) } });
    expect(body).not.toContain('written');
  });

  it("a stream whose key another principal takes over while it waits ends without that principal's result", async () => {
    // Mallory's call names a thread and call id agent also uses (neither is secret).
    const meta = { 'toolgate/thread_id': 'shared', 'toolgate/call_id': 'c-1' };
    const abort = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_slowly', arguments: {}, _meta: meta } });
    const response = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: 'Bearer mallory', 'mcp-protocol-version': '2025-11-25' }, body, signal: abort.signal });
    const lastEventId = ((await sseEvents(response).next()).value as SseEvent).id!;
    abort.abort();
    const events = sseEvents(await resume(lastEventId, 'mallory'));
    expect((await events.next()).value).toEqual({ retry: '3000' });
    // Between two polls her record gives way to agent's call under the same key (her lease freed
    // or lapsed, agent's call took the key over), which completes with agent's output.
    const key = idempotencyKeyFor('call', { tenant: 'acme', thread_id: 'shared', call_id: 'c-1', tool: '', args_hash: '' })!;
    const result = { call_id: 'c-1', name: 'crm__write_slowly', status: 'ok', is_error: false, content: "agent's secret", truncated: false, duration_ms: 1 };
    await gw.store.put(key, { state: 'completed', owner: 'agent-run', expires_at: Date.now() + 60_000, data: { args_hash: 'h', tool: 'crm__write_slowly', principal: 'agent', result } });
    const last = (await events.next()).value as SseEvent;
    expect(last.data).not.toContain("agent's secret");
    expect(JSON.parse(last.data!)).toMatchObject({ id: 1, error: { code: -32000, message: expect.stringContaining('has no record of yours any more') } });
  });

  it('a forged, tampered, oversized or foreign-format id is 404 (never a stream)', async () => {
    const lastEventId = await primedThenDropped('write_slowly');
    release();
    const [, payload] = lastEventId.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    // The same call, claimed for mallory's owner digest: the record still names agent.
    const forgedOwner = Buffer.from(JSON.stringify(['0123456789abcdef', ...decoded.slice(1)])).toString('base64url');
    const otherCall = Buffer.from(JSON.stringify([decoded[0], 1, decoded[2], 'mcp_000000000000000000000000', 'c'])).toString('base64url');
    for (const id of ['nonsense', 'tg1.%%%.0', `tg1.${payload}x.0`, `tg1.${payload}.-1`, `tg1.${forgedOwner}.0`, `tg1.${otherCall}.0`, `tg1.${'A'.repeat(5000)}.0`]) {
      const refused = await resume(id);
      expect(refused.status, id.slice(0, 60)).toBe(404);
      expect(await refused.json()).toMatchObject({ error: { code: -32000 } });
    }
    // Mallory forging her own digest onto agent's call: the record's principal decides.
    const mallorysDigest = Buffer.from(JSON.stringify([await streamOwner('acme', 'mallory'), ...decoded.slice(1)])).toString('base64url');
    expect((await resume(`tg1.${mallorysDigest}.0`, 'mallory')).status).toBe(404);
  });

  it('resuming a call that keeps no record (a read tool) gets a JSON-RPC error saying so, for its request id', async () => {
    const lastEventId = await primedThenDropped('read_slowly', 'r-1');
    release();
    const events = await allEvents(await resume(lastEventId));
    const error = JSON.parse(events.at(-1)!.data!);
    expect(error).toMatchObject({ jsonrpc: '2.0', id: 'r-1', error: { code: -32000, message: expect.stringContaining('keeps no outcome of this call') } });
    expect(error.error.message).toContain('call the tool again');
    expect(events.at(-1)!.id).toMatch(/\.end$/);
  });

  it('a call still running when the wait ends: a JSON-RPC error to resume again, whose id resumes the same place', async () => {
    const lastEventId = await primedThenDropped('write_slowly', 9);
    const resumed = await resume(lastEventId);
    const events = sseEvents(resumed);
    expect((await events.next()).value).toEqual({ retry: '3000' });
    clockOffset = RESUME_WAIT_MS + 1000;
    const notice = (await events.next()).value as SseEvent;
    expect(notice.id).toBe(lastEventId);
    expect(JSON.parse(notice.data!)).toMatchObject({ id: 9, error: { message: expect.stringContaining('is still running after 25 s; resume the stream again') } });
    expect((await events.next()).done).toBe(true);
    release();
    const answer = (await allEvents(await resume(notice.id!))).at(-1)!;
    expect(JSON.parse(answer.data!)).toMatchObject({ id: 9, result: { content: [{ text: 'written' }] } });
  });

  it('the official SDK v1 client whose stream breaks after the priming event resumes it by itself (after the retry) and gets the result', async () => {
    // The network breaks the call's stream once its priming event has arrived (the connection is dropped).
    const breaking = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (init?.method !== 'POST' || !String(init.body).includes('"tools/call"')) return response;
      const upstreamReader = response.body!.getReader();
      let seen = '';
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await upstreamReader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          seen += new TextDecoder().decode(value);
          if (!seen.includes('retry: 3000')) return;
          await upstreamReader.cancel();
          release();
          controller.error(new TypeError('terminated: other side closed'));
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: 'breaking-network', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer agent' } }, fetch: breaking }));
    client.onerror = () => {};
    const result = await client.callTool({ name: 'write_slowly', arguments: {} });
    await client.close();
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'written' }] });
    expect(upstream.calls.filter((c) => c.name === 'write_slowly')).toHaveLength(1);
  });

  it('GET without Last-Event-ID stays 405; a GET that cannot take an event stream is 406', async () => {
    const get = await fetch(`${served.url}/mcp`, { headers: { accept: 'text/event-stream', authorization: 'Bearer agent' } });
    expect(get.status).toBe(405);
    const json = await fetch(`${served.url}/mcp`, { headers: { accept: 'application/json', authorization: 'Bearer agent', 'last-event-id': 'x' } });
    expect(json.status).toBe(406);
    const anonymous = await fetch(`${served.url}/mcp`, { headers: { accept: 'text/event-stream', 'last-event-id': 'x' } });
    expect(anonymous.status).toBe(401);
  });
});

describe("a session's agreed revision", () => {
  const sessionAt = async (protocolVersion: string) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    const response = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: 'Bearer agent' }, body });
    return response.headers.get('mcp-session-id')!;
  };
  const callIn = (session: string, version: string) =>
    fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: 'Bearer agent', 'mcp-session-id': session, 'mcp-protocol-version': version }, body: callBody(1, 'write_slowly') });

  it('decides over the header: 2025-11-25 agreed primes a call sent with 2025-03-26 (as the conformance suite sends it); 2025-06-18 agreed does not', async () => {
    release();
    const primed = await allEvents(await callIn(await sessionAt('2025-11-25'), '2025-03-26'));
    expect(primed[0]).toMatchObject({ data: '', retry: '3000', id: expect.stringMatching(/^tg1\./) });
    const plain = await allEvents(await callIn(await sessionAt('2025-06-18'), '2025-11-25'));
    expect(plain.every((e) => e.id === undefined)).toBe(true);
  });
});

describe('streams that are not resumed', () => {
  it('a call asked as a task (answered with its task, which a resumed stream would not send) is not primed', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_slowly', arguments: {}, task: {} } });
    const response = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: 'Bearer agent', 'mcp-protocol-version': '2025-11-25' }, body });
    release();
    const events = await allEvents(response);
    expect(events.every((e) => e.id === undefined && e.retry === undefined)).toBe(true);
    expect(JSON.parse(events.at(-1)!.data!)).toMatchObject({ id: 3, result: { task: { status: 'completed' } } });
  });

  it('older clients get the stream they always got: no priming event, no ids (2025-06-18, and no header at all)', async () => {
    for (const version of ['2025-06-18', undefined]) {
      const response = await post('write_slowly', { version });
      release();
      const events = await allEvents(response);
      expect(events.map((e) => Object.keys(e).sort())).toEqual([['data', 'event'], ['data', 'event']]);
      expect(JSON.parse(events[1].data!)).toMatchObject({ id: 1, result: { content: [{ text: 'written' }] } });
    }
  });
});

describe('resumed streams cannot be used to load the store', () => {
  it(`at most ${MAX_WAITING_PER_PRINCIPAL} of one principal wait at once; a further one is 429 until one has ended`, async () => {
    const lastEventId = await primedThenDropped('write_slowly');
    const waiting = await Promise.all(Array.from({ length: MAX_WAITING_PER_PRINCIPAL }, () => resume(lastEventId)));
    expect(waiting.map((r) => r.status)).toEqual(Array(MAX_WAITING_PER_PRINCIPAL).fill(200));
    const refused = await resume(lastEventId);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining(`at most ${MAX_WAITING_PER_PRINCIPAL} requests of one caller`) } });
    // The call ends: every waiting stream gets its answer and gives its place back.
    release();
    for (const answer of await Promise.all(waiting.map(allEvents))) expect(JSON.parse(answer.at(-1)!.data!)).toMatchObject({ result: { content: [{ text: 'written' }] } });
    expect((await resume(lastEventId)).status).toBe(200);
  });

  it('each resume counts toward the tenant\'s request limits', async () => {
    const limited = await testGateway([validManifest({ limits: [{ counts: 'requests', per: 'principal', max: 2, window_seconds: 60 }] })], { agent: { tenant: 'acme', principal: 'agent' } });
    const get = () => limited.fetch(new Request('http://gateway/mcp', { headers: { accept: 'text/event-stream', authorization: 'Bearer agent', 'last-event-id': 'nonsense' } }));
    expect((await get()).status).toBe(404);
    expect((await get()).status).toBe(404);
    const over = await get();
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });
});
