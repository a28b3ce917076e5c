/**
 * Sessions on the legacy revisions (2025-11-25 and older) without server state (lib/mcp/session.ts):
 * `initialize` answers an `Mcp-Session-Id` that carries what the client declared, the official SDK
 * client keeps it and sends it with every later request, an id toolgate could not have issued is
 * 404 (the client initializes again), a request without one is served as before, DELETE is 405,
 * and 2026-07-28 requests are sessionless. The id is no credential: forged or borrowed, it grants
 * nothing. The gateway is served on 127.0.0.1 and reached over real HTTP.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSessionId } from '../../lib/mcp/session.ts';
import { serveGateway, type ServedGateway } from '../helpers/confirm-client.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SESSION_ID = /^tgsn_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const TOOLS_LIST = { jsonrpc: '2.0', id: 7, method: 'tools/list' };

let served: ServedGateway;
/** What the SDK client sent: each request's method and session header. */
let sent: Array<{ method: string; body: string; session: string | null }>;

beforeEach(async () => {
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'deny', execute: 'deny' },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'ops_echo', scopes: ['ops'], executor: { kind: 'builtin', name: 'echo' } },
    ],
  });
  const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, operator: { tenant: 'acme', principal: 'operator', scopes: ['ops'] } }, { env: { TOOLGATE_ALLOWED_ORIGINS: 'https://app.example' } });
  served = await serveGateway(gw);
  sent = [];
});
afterEach(async () => {
  await served.close();
});

/** The official SDK client's transport to the served gateway, recording what it sends. */
function transport(sessionId?: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
    ...(sessionId ? { sessionId } : {}),
    requestInit: { headers: { authorization: 'Bearer agent' } },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, body: request.method === 'POST' ? await request.clone().text() : '', session: request.headers.get('mcp-session-id') });
      return fetch(request);
    },
  });
}

async function connected(sessionId?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'session-test', version: '1' });
  const opened = transport(sessionId);
  await client.connect(opened);
  return { client, transport: opened };
}

/** A legacy POST over HTTP, with the key and the extra headers given. */
const post = (body: unknown, headers: Record<string, string> = {}, key = 'agent') =>
  fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify(body) });

/** An id shaped as toolgate's, with any content: what a client could forge. */
const forged = (content: unknown) => `tgsn_${Buffer.from(JSON.stringify(content)).toString('base64url')}.${'A'.repeat(22)}`;

const toolNames = async (response: Response) => ((await response.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);

describe('legacy sessions with the official SDK client', () => {
  it('initialize answers a session id the client keeps and sends with every later request; it names the agreed revision', async () => {
    const { client, transport: opened } = await connected();
    const id = opened.sessionId;
    expect(id).toMatch(SESSION_ID);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'in a session' } })).toMatchObject({ isError: false, content: [{ type: 'text', text: 'in a session' }] });
    const posts = sent.filter((request) => request.method === 'POST');
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ method: 'initialize' });
    expect(posts[0]!.session).toBeNull();
    expect(posts.slice(1).map((request) => JSON.parse(request.body).method)).toEqual(['notifications/initialized', 'tools/list', 'tools/call']);
    for (const request of posts.slice(1)) expect(request.session).toBe(id);
    expect(readSessionId(id!)).toEqual({ protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {} });
    await client.close();
  });

  it('works the same with the SDK v2 client: on the legacy handshake it keeps the id, probing the 2026-07-28 revision it has none', async () => {
    const recorded = (): typeof fetch => async (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, body: request.method === 'POST' ? await request.clone().text() : '', session: request.headers.get('mcp-session-id') });
      return fetch(request);
    };
    const open = async (mode: 'legacy' | 'auto') => {
      const opened = new TransportV2(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer agent' } }, fetch: recorded() });
      const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode } });
      await client.connect(opened);
      return { client, opened };
    };
    const legacy = await open('legacy');
    expect(legacy.opened.sessionId).toMatch(SESSION_ID);
    expect((await legacy.client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(sent.filter((request) => request.body.includes('"tools/list"')).map((request) => request.session)).toEqual([legacy.opened.sessionId]);
    await legacy.client.close();
    const modern = await open('auto');
    expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(modern.opened.sessionId).toBeUndefined();
    expect((await modern.client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await modern.client.close();
  });

  it('gives every initialize a session of its own, naming the revision agreed and the capabilities toolgate relays', async () => {
    const declared = { sampling: {}, elicitation: { url: {} }, roots: { listChanged: true }, experimental: { x: {} } };
    const answers = await Promise.all([post({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: declared } }), post(INITIALIZE), post({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '1999-01-01', capabilities: { elicitation: {} } } })]);
    const ids = answers.map((answer) => answer.headers.get('mcp-session-id')!);
    expect(new Set(ids).size).toBe(3);
    expect(ids.map((id) => readSessionId(id))).toEqual([
      { protocolVersion: '2025-06-18', capabilities: { sampling: {}, elicitation: { url: {} }, roots: {} } },
      { protocolVersion: '2025-06-18', capabilities: {} },
      // An unknown revision is answered with the latest; an empty elicitation capability is form mode.
      { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } },
    ]);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(512);
  });

  it('answers 404 to an id toolgate could not have issued, and the SDK client recovers by initializing again', async () => {
    const refused = await post(TOOLS_LIST, { 'mcp-session-id': 'tgsn_bogus' });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: this Mcp-Session-Id was not issued by toolgate (or was altered); send initialize again, without it, for a new one' }, id: 7 });

    // A client resuming a session it kept (the SDK skips initialize then) hears 404 and starts a new one.
    const { client: stale } = await connected('tgsn_bogus');
    const error = await stale.listTools().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    await stale.close();
    const { client, transport: fresh } = await connected();
    expect(fresh.sessionId).toMatch(SESSION_ID);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await client.close();
  });

  it('opens a new session on initialize whatever id it was sent with', async () => {
    const answer = await post(INITIALIZE, { 'mcp-session-id': 'tgsn_bogus' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toMatch(SESSION_ID);
  });

  it('serves a request without the header as before, and names no session on answers other than initialize', async () => {
    const plain = await post(TOOLS_LIST);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('mcp-session-id')).toBeNull();
    expect(await toolNames(plain)).toEqual(['echo']);
    const id = (await post(INITIALIZE)).headers.get('mcp-session-id')!;
    const inSession = await post(TOOLS_LIST, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' });
    expect(inSession.status).toBe(200);
    expect(inSession.headers.get('mcp-session-id')).toBeNull();
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id })).status).toBe(202);
  });

  it('answers DELETE 405 saying why (nothing is kept to terminate), which the SDK client takes as the end of its session', async () => {
    const { client, transport: opened } = await connected();
    const refused = await fetch(`${served.url}/mcp`, { method: 'DELETE', headers: { authorization: 'Bearer agent', 'mcp-session-id': opened.sessionId! } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('Method not allowed: toolgate keeps nothing for an MCP session, so there is none to terminate; stop sending its Mcp-Session-Id (initialize again for a new one)');
    await opened.terminateSession();
    expect(opened.sessionId).toBeUndefined();
    await client.close();
  });

  it('reads no session on 2026-07-28 requests (sessionless) and names none in their answers', async () => {
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const answer = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-session-id': 'not-a-session' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(await answer.json()).toMatchObject({ result: { resultType: 'complete', tools: [{ name: 'echo' }] } });
  });

  it('lets a browser page of an allowed origin read the session id and send it back', async () => {
    const answer = await post(INITIALIZE, { origin: 'https://app.example' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(answer.headers.get('access-control-expose-headers')?.split(',').map((name) => name.trim().toLowerCase())).toContain('mcp-session-id');
    const preflight = await fetch(`${served.url}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-session-id' } });
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(',').map((name) => name.trim())).toContain('mcp-session-id');
  });
});

describe('session ids as an attacker sends them', () => {
  it('answers 404 to a malformed, oversized, non-ASCII or altered id, or one naming a revision toolgate does not serve', async () => {
    const minted = (await post(INITIALIZE)).headers.get('mcp-session-id')!;
    const [content, nonce] = minted.slice('tgsn_'.length).split('.');
    const hostile = [
      '',
      'tgsn_',
      minted.replace('tgsn_', 'tgx_'),
      `${minted}.`,
      `tgsn_${content}`, // no random part
      `tgsn_${content}.${nonce!.slice(1)}`, // a random part that is not 16 bytes
      `tgsn_${content!.slice(1)}.${nonce}`, // altered base64url
      `${minted}, ${minted}`, // two ids (headers joined)
      `tgsn_${content}é.${nonce}`, // not visible ASCII
      forged({ v: '2025-06-18', c: [], pad: 'x'.repeat(400) }), // over 512 characters
      forged({ v: '1999-01-01', c: [] }), // a revision toolgate does not serve
      forged({ v: '2026-07-28', c: [] }), // the sessionless revision
      forged({ v: '2025-06-18' }), // no capabilities
      forged({ v: '2025-06-18', c: [{ sampling: {} }] }), // a capability that is not a flag
      forged(['2025-06-18', []]),
      `tgsn_${Buffer.from('{"v":"2025-06-18","c":[]').toString('base64url')}.${nonce}`, // not JSON
      `tgsn_${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.${nonce}`, // not UTF-8
    ];
    for (const id of hostile) {
      const answer = await post({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'echo', arguments: { text: 'ran' } } }, { 'mcp-session-id': id });
      expect([id, answer.status]).toEqual([id, 404]);
      expect(await answer.json()).toMatchObject({ error: { code: -32001 }, id: 'x' });
    }
    // A batch or a posted response with an unknown session: refused the same way (no id to echo).
    expect((await post([TOOLS_LIST], { 'mcp-session-id': 'tgsn_bogus' })).status).toBe(404);
    expect((await post({ jsonrpc: '2.0', id: 'r', result: {} }, { 'mcp-session-id': 'tgsn_bogus' })).status).toBe(404);
  });

  it('takes an id naming flags it does not know (a newer toolgate\'s) and ignores them', async () => {
    const id = forged({ v: '2025-11-25', c: ['sampling', 'teleport'], later: true });
    expect(readSessionId(id)).toEqual({ protocolVersion: '2025-11-25', capabilities: { sampling: {} } });
    expect((await post(TOOLS_LIST, { 'mcp-session-id': id })).status).toBe(200);
  });

  it('grants nothing: an id claiming every capability, or another principal\'s, leaves the key deciding who calls what', async () => {
    const claimsAll = forged({ v: '2025-11-25', c: ['sampling', 'elicitation.form', 'elicitation.url', 'roots'] });
    expect(await toolNames(await post(TOOLS_LIST, { 'mcp-session-id': claimsAll }))).toEqual(['echo']);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ops_echo', arguments: { text: 'x' } } };
    expect(await (await post(call, { 'mcp-session-id': claimsAll })).json()).toMatchObject({ result: { isError: true, _meta: { 'toolgate/status': 'forbidden' } } });

    // The operator's own session id, borrowed by the agent: the agent's key still decides.
    const operators = (await post(INITIALIZE, {}, 'operator')).headers.get('mcp-session-id')!;
    expect(await toolNames(await post(TOOLS_LIST, { 'mcp-session-id': operators }, 'operator'))).toEqual(['echo', 'ops_echo']);
    expect(await toolNames(await post(TOOLS_LIST, { 'mcp-session-id': operators }))).toEqual(['echo']);
    expect(await (await post(call, { 'mcp-session-id': operators })).json()).toMatchObject({ result: { isError: true, _meta: { 'toolgate/status': 'forbidden' } } });
    // And without a key, nothing at all.
    const anonymous = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, 'mcp-session-id': operators }, body: JSON.stringify(TOOLS_LIST) });
    expect(anonymous.status).toBe(401);
  });
});
