import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeHeaderValue } from '../../lib/mcp-wire/header-value.ts';
import { readSessionId } from '../../lib/mcp/session.ts';
import { activateManifest, publishManifest } from '../../lib/registry/manifest/manifest-store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { sdkV2Endpoint } from '../helpers/mcp-v2-oracle.ts';

/**
 * MCP 2026-07-28 on /mcp: the official SDK v2 client pinned to the revision lists and calls
 * tools; raw requests cover every error row of the revision's transport (status, code, id), and
 * where the SDK v2's own endpoint answers the same cell, toolgate answers the same bytes.
 */

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

let gw: Awaited<ReturnType<typeof testGateway>>;
let runs = 0;

const manifest = (version = '1', description = 'Acme tools') =>
  validManifest({
    tenant: 'acme',
    version,
    description,
    policy: { read: 'grant', write: 'review', execute: 'deny' },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'nuke', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } },
      {
        name: 'regional',
        description: 'Echoes, routed by region.',
        executor: { kind: 'builtin', name: 'echo' },
        input_schema: { type: 'object', properties: { text: { type: 'string' }, region: { type: 'string', 'x-mcp-header': 'Region' }, shard: { type: 'integer', 'x-mcp-header': 'Shard' } }, required: ['text'] },
      },
    ],
  });

beforeEach(async () => {
  runs = 0;
  gw = await testGateway([manifest()], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const save = runtime.registry.get('save_note')!;
  runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; return save.execute(args, ctx); } }, { replace: true });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The official SDK v2 client, pinned to 2026-07-28 (no fallback to initialize), over the in-process app. */
async function pinnedClient(path = '/mcp', key = 'agent', seen: Request[] = []): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://gateway${path}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      seen.push(request.clone());
      return gw.app.fetch(request);
    },
  });
  const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport);
  return client;
}

const text = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;

describe('the SDK v2 client pinned to 2026-07-28', () => {
  it('discovers the server, lists the tools and calls one, with no initialize and no session', async () => {
    const seen: Request[] = [];
    const client = await pinnedClient('/mcp', 'agent', seen);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: 'toolgate', version: '1' });
    const { tools } = await client.listTools();
    // nuke is not listed: the policy denies every execute call, so the model is not shown it (a call is still answered `denied`).
    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([['echo', true], ['save_note', false], ['regional', true]]);
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'over 2026-07-28' } });
    expect(ok).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok', 'toolgate/manifest_version': '1' } });
    expect(text(ok)).toBe('over 2026-07-28');
    // The client mirrors x-mcp-header arguments in Mcp-Param-* headers; toolgate checks them.
    const routed = await client.callTool({ name: 'regional', arguments: { text: 'eu', region: 'eu-west', shard: 3 } });
    expect(text(routed)).toBe('eu');
    const methods = await Promise.all(seen.map(async (r) => (JSON.parse(await r.text()) as { method?: string }).method));
    expect(methods).not.toContain('initialize');
    expect(methods).toContain('server/discover');
    const call = seen.find((r) => r.headers.get('mcp-name') === 'regional')!;
    expect([call.headers.get('mcp-method'), call.headers.get('mcp-param-region'), call.headers.get('mcp-param-shard')]).toEqual(['tools/call', 'eu-west', '3']);
    await client.close();
  });

  it('sends Mcp-Param values that need it as base64, exactly as toolgate encodes them, and toolgate accepts them', async () => {
    const seen: Request[] = [];
    const client = await pinnedClient('/mcp', 'agent', seen);
    for (const region of ['Zürich', ' padded', '=?base64?abc?=', 'tab\tinside']) {
      const result = await client.callTool({ name: 'regional', arguments: { text: region, region } });
      expect([result.isError, text(result)]).toEqual([false, region]);
      expect(seen.at(-1)!.headers.get('mcp-param-region')).toBe(encodeHeaderValue(region));
    }
    await client.close();
  });

  it('gets tool failures, unknown tools, denials and parked calls as isError results', async () => {
    const client = await pinnedClient('/mcp/acme');
    const invalid = await client.callTool({ name: 'echo', arguments: { text: 1 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('`text` must be a string, got number 1');
    expect(await client.callTool({ name: 'teleport', arguments: {} })).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'unknown_tool' } });
    expect(await client.callTool({ name: 'nuke', arguments: { text: 'boom' } })).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'denied' } });
    const parked = await client.callTool({ name: 'save_note', arguments: { text: 'later' } });
    expect(parked).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'pending_approval', 'toolgate/approval_id': expect.stringMatching(/^apr_/) } });
    expect(runs).toBe(0);
    await client.close();
  });

  it('also finds the modern revision in auto mode (probe first, fall back to initialize only if refused)', async () => {
    const transport = new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), { requestInit: { headers: { authorization: 'Bearer agent' } }, fetch: async (input, init) => gw.app.fetch(new Request(input, init)) });
    const client = new Client({ name: 'auto', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'auto' } }))).toBe('auto');
    await client.close();
  });
});

/** A raw POST to /mcp with the agent's key. */
function send(body: unknown, headers: Record<string, string>) {
  return gw.request('/mcp', { method: 'POST', key: 'agent', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** The headers a 2026-07-28 client sends for `method` (and `name`). */
const modernHeaders = (method: string, name?: string): Record<string, string> => ({ ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) });
const request = (id: number | string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = ENVELOPE) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
const echoCall = (id: number, extra: Record<string, unknown> = {}) => request(id, 'tools/call', { name: 'echo', arguments: { text: 'x' }, ...extra });
const without = (headers: Record<string, string>, name: string) => Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));

interface Cell {
  name: string;
  body: unknown;
  headers: Record<string, string>;
  status: number;
  code: number;
  /** The id the error carries (null when the request had none to echo). */
  id: number | string | null;
  /** The SDK v2 endpoint answers this cell with exactly these bytes. */
  sameBytesAsSdk?: boolean;
}

/** Every error row of the 2026-07-28 transport (the brief's table 1.4), as raw requests. */
const CELLS: Cell[] = [
  // Envelope missing or malformed behind a claim; a modern header without an envelope: 400 -32602.
  { name: 'envelope without clientCapabilities', body: request(1, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': MODERN }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 1, sameBytesAsSdk: true },
  { name: 'envelope with a numeric protocol version', body: request(2, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': 5 }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 2 },
  { name: 'envelope with capabilities that are an array', body: request(3, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': [] }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 3 },
  { name: 'envelope with a client name that is not a string', body: request(4, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 1, version: '1' } }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 4 },
  { name: 'envelope with an unknown log level', body: request(5, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 5 },
  { name: 'a modern header, no _meta', body: { jsonrpc: '2.0', id: 6, method: 'tools/list' }, headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 6, sameBytesAsSdk: true },
  { name: 'a modern header, _meta without the version', body: request(7, 'tools/list', {}, { 'io.modelcontextprotocol/clientCapabilities': {} }), headers: modernHeaders('tools/list'), status: 400, code: -32602, id: 7, sameBytesAsSdk: true },
  // Header/body disagreements and missing or undecodable headers: 400 -32020.
  { name: 'MCP-Protocol-Version differs from the envelope', body: request(8, 'tools/list'), headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2025-11-25' }, status: 400, code: -32020, id: 8, sameBytesAsSdk: true },
  { name: 'Mcp-Method differs from the method', body: request(9, 'tools/list'), headers: modernHeaders('tools/call'), status: 400, code: -32020, id: 9, sameBytesAsSdk: true },
  { name: 'Mcp-Name differs from the tool', body: echoCall(10), headers: modernHeaders('tools/call', 'nuke'), status: 400, code: -32020, id: 10, sameBytesAsSdk: true },
  { name: 'MCP-Protocol-Version missing', body: request(11, 'tools/list'), headers: without(modernHeaders('tools/list'), 'mcp-protocol-version'), status: 400, code: -32020, id: 11, sameBytesAsSdk: true },
  { name: 'Mcp-Method missing', body: request(12, 'tools/list'), headers: without(modernHeaders('tools/list'), 'mcp-method'), status: 400, code: -32020, id: 12, sameBytesAsSdk: true },
  { name: 'Mcp-Name missing', body: echoCall(13), headers: modernHeaders('tools/call'), status: 400, code: -32020, id: 13, sameBytesAsSdk: true },
  { name: 'Mcp-Name with a broken base64 sentinel', body: echoCall(14), headers: modernHeaders('tools/call', '=?base64?ZWNobw?='), status: 400, code: -32020, id: 14, sameBytesAsSdk: true },
  { name: 'Mcp-Name with a sentinel that is not UTF-8', body: echoCall(15), headers: modernHeaders('tools/call', '=?base64?/w==?='), status: 400, code: -32020, id: 15, sameBytesAsSdk: true },
  { name: 'initialize sent with a modern header', body: { jsonrpc: '2.0', id: 16, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, headers: modernHeaders('initialize'), status: 400, code: -32020, id: 16, sameBytesAsSdk: true },
  { name: 'Mcp-Param-Region missing', body: request(17, 'tools/call', { name: 'regional', arguments: { text: 'x', region: 'eu' } }), headers: modernHeaders('tools/call', 'regional'), status: 400, code: -32020, id: 17 },
  { name: 'Mcp-Param-Region differs', body: request(18, 'tools/call', { name: 'regional', arguments: { text: 'x', region: 'eu' } }), headers: { ...modernHeaders('tools/call', 'regional'), 'mcp-param-region': 'us' }, status: 400, code: -32020, id: 18 },
  { name: 'Mcp-Param-Shard differs numerically', body: request(19, 'tools/call', { name: 'regional', arguments: { text: 'x', shard: 3 } }), headers: { ...modernHeaders('tools/call', 'regional'), 'mcp-param-shard': '4' }, status: 400, code: -32020, id: 19 },
  { name: 'Mcp-Param-Region with a broken sentinel', body: request(20, 'tools/call', { name: 'regional', arguments: { text: 'x', region: 'eu' } }), headers: { ...modernHeaders('tools/call', 'regional'), 'mcp-param-region': '=?base64?x?=' }, status: 400, code: -32020, id: 20 },
  // Unsupported revisions: 400 -32022 with the supported list.
  { name: 'an envelope naming 2099-01-01', body: request(21, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }), headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' }, status: 400, code: -32022, id: 21 },
  { name: 'an envelope naming a legacy revision', body: request(22, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }), headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2025-06-18' }, status: 400, code: -32022, id: 22 },
  // Unknown or removed methods: 404 -32601.
  { name: 'ping (removed)', body: request(23, 'ping'), headers: modernHeaders('ping'), status: 404, code: -32601, id: 23, sameBytesAsSdk: true },
  { name: 'initialize with a valid envelope (removed)', body: request(24, 'initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'c', version: '1' } }), headers: modernHeaders('initialize'), status: 404, code: -32601, id: 24, sameBytesAsSdk: true },
  { name: 'logging/setLevel (removed)', body: request(25, 'logging/setLevel', { level: 'info' }), headers: modernHeaders('logging/setLevel'), status: 404, code: -32601, id: 25, sameBytesAsSdk: true },
  { name: 'an unknown method', body: request('m-26', 'foo/bar'), headers: modernHeaders('foo/bar'), status: 404, code: -32601, id: 'm-26', sameBytesAsSdk: true },
  // Not JSON-RPC behind a claim, and batches holding a modern request: 400 -32600.
  { name: 'a modern batch', body: [request(27, 'tools/list')], headers: modernHeaders('tools/list'), status: 400, code: -32600, id: null, sameBytesAsSdk: true },
  { name: 'a batch mixing a legacy and a modern request', body: [{ jsonrpc: '2.0', id: 28, method: 'ping' }, request(29, 'tools/list')], headers: JSON_HEADERS, status: 400, code: -32600, id: null, sameBytesAsSdk: true },
  { name: 'params that are an array, with a modern header', body: { jsonrpc: '2.0', id: 30, method: 'tools/list', params: [] }, headers: modernHeaders('tools/list'), status: 400, code: -32600, id: 30, sameBytesAsSdk: true },
  { name: 'an unknown top-level key behind a claim', body: { ...request(31, 'tools/list'), extra: 1 }, headers: modernHeaders('tools/list'), status: 400, code: -32600, id: 31, sameBytesAsSdk: true },
  // Params invalid for the method: in-band (200) -32602.
  { name: 'tools/call without a name', body: request(32, 'tools/call', { arguments: {} }), headers: modernHeaders('tools/call'), status: 200, code: -32602, id: 32 },
  { name: 'tools/call with arguments that are an array', body: request(33, 'tools/call', { name: 'echo', arguments: [] }), headers: modernHeaders('tools/call', 'echo'), status: 200, code: -32602, id: 33 },
];

describe('2026-07-28 transport errors, by row', () => {
  const oracle = sdkV2Endpoint();
  it.each(CELLS.map((cell) => [cell.name, cell] as const))('%s', async (_name, cell) => {
    const answer = await send(cell.body, cell.headers);
    const body = await answer.text();
    expect(answer.status).toBe(cell.status);
    const parsed = JSON.parse(body) as { id: unknown; error: { code: number; message: string } };
    expect(parsed.error.code).toBe(cell.code);
    expect(parsed.id).toBe(cell.id);
    expect(parsed.error.message.length).toBeGreaterThan(10);
    const sdk = await oracle(new Request('http://oracle/mcp', { method: 'POST', headers: cell.headers, body: JSON.stringify(cell.body) }));
    if (cell.name.startsWith('Mcp-Param') || cell.status === 200) return; // the oracle has no such tool, or its own params wording
    const expected = await sdk.text();
    expect(sdk.status).toBe(cell.status);
    expect((JSON.parse(expected) as { error: { code: number } }).error.code).toBe(cell.code);
    if (cell.sameBytesAsSdk) expect(body).toBe(expected);
  });

  it('names in -32022 the revisions server/discover offers, and in its message the legacy ones initialize serves', async () => {
    const discovered = await (await send(request(2, 'server/discover', {}, ENVELOPE), modernHeaders('server/discover'))).json();
    for (const requested of ['2099-01-01', '2025-06-18']) {
      const answer = await send(request(1, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': requested }), { ...modernHeaders('tools/list'), 'mcp-protocol-version': requested });
      const { error } = await answer.json();
      expect(answer.status).toBe(400);
      expect(error).toMatchObject({ code: -32022, data: { supported: discovered.result.supportedVersions, requested } });
      expect(error.data.supported).toEqual([MODERN]);
      expect(error.message).toContain('the legacy revisions 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07 are served through initialize');
    }
  });

  it('says which envelope key is wrong', async () => {
    const answer = await send(request(1, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 1, version: '1' } }), modernHeaders('tools/list'));
    expect(await answer.json()).toMatchObject({ error: { message: 'Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientInfo.name: must be a string, got number 1', data: { envelope: { key: 'io.modelcontextprotocol/clientInfo.name' } } } });
  });

  it('takes notifications with 202, with or without an envelope', async () => {
    for (const body of [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, _meta: ENVELOPE } }]) {
      const answer = await send(body, modernHeaders(body.method));
      expect([answer.status, await answer.text()]).toEqual([202, '']);
    }
  });

  it('decodes a base64 Mcp-Name and strips the whitespace HTTP allows around header values', async () => {
    for (const name of ['=?base64?ZWNobw==?=', ' echo\t']) {
      const answer = await send(echoCall(1), modernHeaders('tools/call', name));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ result: { resultType: 'complete', isError: false } });
    }
  });

  it('expects no Mcp-Param header for an argument the call leaves out or sets to null', async () => {
    for (const args of [{ text: 'x' }, { text: 'x', region: null }]) {
      const answer = await send(request(1, 'tools/call', { name: 'regional', arguments: args }), modernHeaders('tools/call', 'regional'));
      expect(answer.status).toBe(200);
    }
    const numeric = await send(request(2, 'tools/call', { name: 'regional', arguments: { text: 'x', shard: 3 } }), { ...modernHeaders('tools/call', 'regional'), 'mcp-param-shard': '3.0' });
    expect(numeric.status).toBe(200);
  });

  it('ignores a session id on modern requests and never mints one', async () => {
    const answer = await send(request(1, 'tools/list'), { ...modernHeaders('tools/list'), 'mcp-session-id': 'made-up' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('2026-07-28 results', () => {
  it('server/discover offers the modern revision, the tools capability, the Tasks extension and the server in _meta', async () => {
    const answer = await send(request('server-discover-probe-1', 'server/discover'), modernHeaders('server/discover'));
    expect(answer.status).toBe(200);
    const { result } = (await answer.json()) as { result: Record<string, unknown> };
    expect(result).toEqual({
      supportedVersions: [MODERN],
      capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      instructions: 'Acme tools',
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'private',
      _meta: { 'toolgate/manifest_version': '1', 'io.modelcontextprotocol/serverInfo': { name: 'toolgate', version: '1', title: 'toolgate: acme' } },
    });
  });

  it('tools/list and tools/call carry resultType, the manifest version and (for the list) private cache hints', async () => {
    const list = (await (await send(request(1, 'tools/list'), modernHeaders('tools/list'))).json()) as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', _meta: { 'toolgate/manifest_version': '1' } });
    expect(Number.isInteger(list.result.ttlMs)).toBe(true);
    const call = (await (await send(echoCall(2), modernHeaders('tools/call', 'echo'))).json()) as { result: Record<string, unknown> };
    expect(call.result).toMatchObject({ resultType: 'complete', isError: false, _meta: { 'toolgate/status': 'ok', 'toolgate/manifest_version': '1' } });
    expect(call.result).not.toHaveProperty('ttlMs');
  });

  it('tells clients to cache tools/list exactly until the gateway would serve a newly activated version', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-08-01T00:00:00Z'));
    const cached = await testGateway([manifest('1')], { agent: { tenant: 'acme', principal: 'agent' } }, { manifestCacheMs: 60_000 });
    const list = async () => {
      const answer = await cached.request('/mcp', { method: 'POST', key: 'agent', headers: modernHeaders('tools/list'), body: JSON.stringify(request(1, 'tools/list')) });
      const { result } = (await answer.json()) as { result: { ttlMs: number; _meta: Record<string, string> } };
      return [result._meta['toolgate/manifest_version'], result.ttlMs];
    };
    expect(await list()).toEqual(['1', 60_000]);
    vi.setSystemTime(new Date('2026-08-01T00:00:20Z'));
    expect(await list()).toEqual(['1', 40_000]);
    // Another isolate activates version 2 (written to the store; this isolate is not told).
    await publishManifest(cached.store, cached.services.audit!, manifest('2', 'Acme tools, v2'), 'ops');
    await activateManifest(cached.store, cached.services.audit!, 'acme', '2', 'ops');
    vi.setSystemTime(new Date('2026-08-01T00:00:59.999Z'));
    expect(await list()).toEqual(['1', 1]);
    // The moment every client's cache of version 1 has run out, the gateway serves version 2.
    vi.setSystemTime(new Date('2026-08-01T00:01:00Z'));
    expect(await list()).toEqual(['2', 60_000]);
  });
});

describe('legacy clients are unchanged beside the modern ones', () => {
  it('answers initialize with the client\'s legacy revision (never a modern one) and a session naming it', async () => {
    const answer = await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, JSON_HEADERS);
    expect(readSessionId(answer.headers.get('mcp-session-id')!)).toEqual({ protocolVersion: '2025-06-18', capabilities: {} });
    expect(await answer.json()).toEqual({ result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, serverInfo: { name: 'toolgate', version: '1', title: 'toolgate: acme' }, instructions: 'Acme tools' }, jsonrpc: '2.0', id: 1 });
    const never = await send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, JSON_HEADERS);
    expect(((await never.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
  });

  it('serves a legacy tools/list without resultType or cache hints', async () => {
    const answer = await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' });
    const { result } = (await answer.json()) as { result: Record<string, unknown> };
    expect(Object.keys(result)).toEqual(['tools']);
  });
});
