import { beforeEach, describe, expect, it } from 'vitest';
import { handleMcpRequestWithSdk, type McpRequestContext } from '../../lib/mcp/server.ts';
import { answerStatelessMcpRequest, mcpAnswerResponse } from '../../lib/mcp/stateless-request.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

let context: McpRequestContext;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeEach(async () => {
  const manifest = validManifest({
    tenant: 'acme',
    description: 'Acme tools',
    policy: { read: 'grant', write: 'review', execute: 'deny' },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'nuke', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } },
      { name: 'scoped', scopes: ['ops'], executor: { kind: 'builtin', name: 'echo' } },
    ],
  });
  gw = await testGateway([manifest], {});
  context = { runtime: (await gw.tenants.runtime('acme'))!, principal: { tenant: 'acme', principal: 'agent', scopes: [] }, env: {} };
});

const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

function post(body: unknown, headers: Record<string, string> = JSON_HEADERS): Request {
  return new Request('http://gateway/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
}

async function snapshot(response: Response) {
  return { status: response.status, type: response.headers.get('content-type'), session: response.headers.get('mcp-session-id'), body: await response.text() };
}

const call = (id: unknown, name: unknown, args: unknown, meta?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });

/** Messages answered without the SDK: each must get exactly the bytes the SDK gives. */
const ANSWERED: Array<[string, unknown, Record<string, string>?]> = [
  ['ping', { jsonrpc: '2.0', id: 1, method: 'ping' }],
  ['ping with a string id and empty params', { jsonrpc: '2.0', id: 'p-1', method: 'ping', params: {} }],
  ['tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
  ['tools/list with _meta', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { note: 'x' } } }],
  ['tools/call ok', call(4, 'echo', { text: 'same bytes' })],
  ['tools/call ok, extra params dropped', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, extra: true } }],
  ['tools/call without arguments', { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo' } }],
  ['tools/call unknown tool', call(7, 'nope', {})],
  ['tools/call invalid arguments', call(8, 'echo', { text: 1 })],
  ['tools/call denied', call(9, 'nuke', { text: 'x' })],
  ['tools/call lacking a scope', call(10, 'scoped', { text: 'x' })],
  ['tools/call with a thread and call id in _meta', call(11, 'echo', { text: 'meta' }, { 'toolgate/thread_id': 't-1', 'toolgate/call_id': 'c-1' })],
  ['initialize (supported version)', { jsonrpc: '2.0', id: 12, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }],
  ['initialize (unknown version: the latest)', { jsonrpc: '2.0', id: 13, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }],
  ['notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['notifications/cancelled', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
  ['a supported protocol version header', { jsonrpc: '2.0', id: 14, method: 'ping' }, { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' }],
  ['a content type with a charset', { jsonrpc: '2.0', id: 15, method: 'ping' }, { ...JSON_HEADERS, 'content-type': 'application/json; charset=utf-8' }],
];

/** Messages left to the SDK (it answers them with its errors or its own handling). */
const LEFT_TO_SDK: Array<[string, unknown, Record<string, string>?]> = [
  ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
  ['no Accept for event streams', { jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json', 'content-type': 'application/json' }],
  ['a text body', { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...JSON_HEADERS, 'content-type': 'text/plain' }],
  ['an unsupported protocol version header', { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...JSON_HEADERS, 'mcp-protocol-version': '1999-01-01' }],
  ['an unknown top-level key', { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 }],
  ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'ping' }],
  ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
  ['params that are not an object', { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] }],
  ['an unknown method', { jsonrpc: '2.0', id: 1, method: 'resources/list' }],
  ['a tool name that is not a string', call(1, 42, {})],
  ['arguments that are an array', call(1, 'echo', ['x'])],
  ['a progress token', call(1, 'echo', { text: 'x' }, { progressToken: 'p' })],
  ['a task', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', task: {} } }],
  ['a list cursor', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } }],
  ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
  ['initialize without clientInfo', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } }],
];

/**
 * Messages an attacker (or a sloppy client) might send: whichever path takes each, the answer
 * must be the SDK's, byte for byte. JSON.parse, as the route reads bodies, so `__proto__` is
 * an own key as it would be on the wire.
 */
const ADVERSARIAL: Array<[string, unknown]> = [
  ['a negative id', { jsonrpc: '2.0', id: -1, method: 'ping' }],
  ['an id beyond safe integers', JSON.parse('{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}')],
  ['an empty string id', { jsonrpc: '2.0', id: '', method: 'ping' }],
  ['an object id', { jsonrpc: '2.0', id: {}, method: 'ping' }],
  ['an array id', { jsonrpc: '2.0', id: [1], method: 'ping' }],
  ['a boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }],
  ['jsonrpc missing', { id: 1, method: 'ping' }],
  ['method in capitals', { jsonrpc: '2.0', id: 1, method: 'TOOLS/CALL', params: { name: 'echo', arguments: { text: 'x' } } }],
  ['method with a trailing space', { jsonrpc: '2.0', id: 1, method: 'tools/call ', params: { name: 'echo', arguments: { text: 'x' } } }],
  ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 7 }],
  ['params null', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null }],
  ['params a string', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }],
  ['a tools/call without an id (a notification: nothing runs)', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'nuke', arguments: { text: 'x' } } }],
  ['__proto__ among the params', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"__proto__":{"name":"nuke"}}}')],
  ['__proto__ in the arguments', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","__proto__":{"admin":true}}}}')],
  ['__proto__ nested inside an argument value', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":{"__proto__":{"toString":1}}}}}')],
  ['__proto__ in _meta', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"__proto__":{"toolgate/thread_id":"other"}}}}')],
  ['__proto__ at the top level', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"id":2}}')],
  ['constructor as the tool name', call(1, 'constructor', {})],
  ['__proto__ as the tool name', call(1, '__proto__', {})],
  ['a thread id that is a number', call(1, 'echo', { text: 'x' }, { 'toolgate/thread_id': 42 })],
  ['a 10 KB thread id', call(1, 'echo', { text: 'x' }, { 'toolgate/thread_id': 't'.repeat(10_000) })],
  ['a call id that is an object', call(1, 'echo', { text: 'x' }, { 'toolgate/call_id': { a: 1 } })],
  ['_meta that is an array', call(1, 'echo', { text: 'x' }, [1])],
  ['a 4 KB tool name', call(1, 'e'.repeat(4096), {})],
  ['a JSON number as the body', 42],
  ['a JSON string as the body', 'ping'],
  ['an empty batch', []],
];

describe('adversarial MCP messages: the fast path answers as the SDK does, or leaves them to it', () => {
  it.each(ADVERSARIAL)('%s', async (_name, body) => {
    const expected = await snapshot(await handleMcpRequestWithSdk(post(body), context, body));
    expect(expected.status).toBeLessThan(500);
    const direct = answerStatelessMcpRequest(post(body), body, context);
    if (direct) expect(await snapshot(mcpAnswerResponse(await direct))).toEqual(expected);
  });
});

describe('stateless MCP messages answered without the SDK', () => {
  it.each(ANSWERED)('%s: the same status, headers and body as the SDK', async (_name, body, headers) => {
    const direct = answerStatelessMcpRequest(post(body, headers), body, context);
    expect(direct).toBeDefined();
    const expected = await snapshot(await handleMcpRequestWithSdk(post(body, headers), context, body));
    expect(await snapshot(mcpAnswerResponse(await direct!))).toEqual(expected);
  });

  it.each(LEFT_TO_SDK)('%s: left to the SDK', (_name, body, headers) => {
    expect(answerStatelessMcpRequest(post(body, headers), body, context)).toBeUndefined();
  });

  it('keeps callers apart: the same JSON-RPC id from two principals at once gets each its own answer', async () => {
    const other: McpRequestContext = { ...context, principal: { tenant: 'acme', principal: 'mallory', scopes: [] } };
    const bodies = [call(1, 'echo', { text: 'for agent' }), call(1, 'echo', { text: 'for mallory' })];
    const [a, b] = await Promise.all([answerStatelessMcpRequest(post(bodies[0]), bodies[0], context)!, answerStatelessMcpRequest(post(bodies[1]), bodies[1], other)!]);
    expect(JSON.parse(a.body!).result.content[0].text).toBe('for agent');
    expect(JSON.parse(b.body!).result.content[0].text).toBe('for mallory');
  });

  it('reports the scopes a refused call needed, as the SDK path does', async () => {
    const missing: string[][] = [];
    const body = call(1, 'scoped', { text: 'x' });
    await answerStatelessMcpRequest(post(body), body, { ...context, onMissingScope: (required) => missing.push(required) });
    expect(missing).toEqual([['ops']]);
  });
});

describe('POST /mcp through the app', () => {
  it('answers a batch and a malformed message through the SDK', async () => {
    const key = 'tg_test_stateless_key_0123456789abcdef';
    const { createApiKey } = await import('../../lib/governance/api-keys.ts');
    await createApiKey(gw.store, { tenant: 'acme', principal: 'agent', scopes: [] }, key);
    const send = (body: unknown) => gw.request('/mcp', { method: 'POST', key, headers: JSON_HEADERS, json: body });
    const batch = await send([{ jsonrpc: '2.0', id: 1, method: 'ping' }, call(2, 'echo', { text: 'in a batch' })]);
    const answers = (await batch.json()) as Array<{ id: number; result: { content?: Array<{ text: string }> } }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1].result.content?.[0].text).toBe('in a batch');
    const ping = await send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect([ping.status, ping.headers.get('content-type'), await ping.text()]).toEqual([200, 'application/json', '{"result":{},"jsonrpc":"2.0","id":7}']);
    const notified = await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([notified.status, await notified.text()]).toEqual([202, '']);
    const malformed = await send({ jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('a direct answer keeps the headers middleware set', () => {
  it('carries CORS for an allowed origin, as the SDK path does', async () => {
    const manifest = validManifest({ tenant: 'acme', tools: [{ name: 'echo', executor: { kind: 'builtin' } }] });
    const web = await testGateway([manifest], { key: { tenant: 'acme' } }, { env: { TOOLGATE_ALLOWED_ORIGINS: 'https://app.example.com' } });
    const headers = { ...JSON_HEADERS, origin: 'https://app.example.com' };
    const direct = await web.request('/mcp', { key: 'key', method: 'POST', headers, json: call(1, 'echo', { text: 'cors' }) });
    const viaSdk = await web.request('/mcp', { key: 'key', method: 'POST', headers, json: [call(2, 'echo', { text: 'cors' })] });
    for (const response of [direct, viaSdk]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(response.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id,WWW-Authenticate');
    }
    expect(JSON.parse(await direct.text()).result.content[0].text).toBe('cors');
    const noOrigin = await web.request('/mcp', { key: 'key', method: 'POST', headers: JSON_HEADERS, json: call(3, 'echo', { text: 'x' }) });
    expect([noOrigin.headers.get('access-control-allow-origin'), noOrigin.headers.get('vary')]).toEqual([null, 'Origin']);
    const evil = await web.request('/mcp', { key: 'key', method: 'POST', headers: { ...JSON_HEADERS, origin: 'https://evil.example.com' }, json: call(4, 'echo', { text: 'x' }) });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});
