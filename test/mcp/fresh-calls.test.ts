import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Over MCP each tools/call is its own call: without an id of the client's it runs again, however
 * alike an earlier one was (issue 23, finding 1: a repeated `cat` got the first run's output).
 * The exceptions: an id the client gives (`_meta["toolgate/call_id"]`, `params.idempotencyKey`,
 * the Idempotency-Key header) replays; and a call waiting for approval is found again by its
 * identical twin, until its outcome has been delivered once.
 */

let gw: Awaited<ReturnType<typeof testGateway>>;
let store: MemoryStore;
let twinReads: string[];
const runs: Record<string, number> = {};
const clients: Array<{ close(): Promise<void> }> = [];

const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

beforeEach(async () => {
  for (const key of Object.keys(runs)) delete runs[key];
  twinReads = [];
  // The store, with its reads of twin pointers counted (read tools must never cause one).
  store = new MemoryStore();
  const get = store.get.bind(store);
  store.get = async (key) => {
    if (key.startsWith('mcp-twin/')) twinReads.push(key);
    return get(key);
  };
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'review', execute: 'grant', rules: [{ tool: 'save_note', arguments: { text: 'granted.*' }, action: 'grant' }] },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
      { name: 'run_tests', tier: 'execute', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
    ],
  });
  gw = await testGateway([manifest], {
    agent: { tenant: 'acme', principal: 'agent' },
    mallory: { tenant: 'acme', principal: 'mallory' },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] },
  }, { store });
  const runtime = (await gw.tenants.runtime('acme'))!;
  for (const name of ['echo', 'save_note', 'run_tests']) {
    const tool = runtime.registry.get(name)!;
    runtime.registry.register({ ...tool, execute: async (args, ctx) => { runs[name] = (runs[name] ?? 0) + 1; return tool.execute(args, ctx); } }, { replace: true });
  }
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const fetchApp = async (input: string | URL | Request, init?: RequestInit) => gw.app.fetch(new Request(input, init));

async function v1(key = 'agent', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'v1', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } }, fetch: fetchApp }));
  clients.push(client);
  return client;
}

async function v2(key = 'agent'): Promise<ClientV2> {
  const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new TransportV2(new URL('http://gateway/mcp'), { requestInit: { headers: { authorization: `Bearer ${key}` } }, fetch: fetchApp }));
  clients.push(client);
  return client;
}

/** A raw POST to /mcp (legacy unless the body carries the modern envelope). */
async function post(body: unknown, headers: Record<string, string> = {}, key = 'agent') {
  const response = await gw.request('/mcp', { method: 'POST', key, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { result?: { _meta: Record<string, unknown>; content: Array<{ text: string }> }; error?: { code: number; message: string } } };
}

const legacyCall = (id: number, name: string, args: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } });
const modernCall = (id: number, name: string, args: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra, _meta: ENVELOPE } });
const modernHeaders = (name: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
const pending = async () => ((await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json()) as { approvals: Array<{ id: string; requested_by: string }> }).approvals;
const approve = (id: string) => gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } });

describe('a completed call run again runs again', () => {
  it('with the SDK v1 and v2 clients: every identical call runs, none is a replay', async () => {
    for (const client of [await v1(), await v2()]) {
      for (let i = 0; i < 2; i++) {
        const result = await client.callTool({ name: 'run_tests', arguments: { text: 'npm test' } });
        expect(result.isError).toBe(false);
        expect(result._meta).not.toHaveProperty('toolgate/replayed');
      }
    }
    expect(runs.run_tests).toBe(4);
  });

  it('a call of a tool that can park, granted by a rule, runs again too (its twin lookup finds nothing)', async () => {
    const client = await v1();
    for (let i = 0; i < 2; i++) expect(await client.callTool({ name: 'save_note', arguments: { text: 'granted: ok' } })).toMatchObject({ isError: false });
    expect(runs.save_note).toBe(2);
  });

  it('read tools never pay a twin lookup; tools that can park pay one read each', async () => {
    const client = await v1();
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await client.callTool({ name: 'run_tests', arguments: { text: 'x' } });
    expect(twinReads).toEqual([]);
    await client.callTool({ name: 'save_note', arguments: { text: 'granted: x' } });
    expect(twinReads).toHaveLength(1);
  });
});

describe("an id of the client's makes a retry a replay", () => {
  it('_meta["toolgate/call_id"] (both eras)', async () => {
    const meta = { 'toolgate/call_id': 'c-1' };
    const first = await post(legacyCall(1, 'run_tests', { text: 'x' }, { _meta: meta }));
    const again = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_tests', arguments: { text: 'x' }, _meta: { ...ENVELOPE, ...meta } } }, modernHeaders('run_tests'));
    expect(first.body.result?._meta).toMatchObject({ 'toolgate/call_id': 'c-1' });
    expect(again.body.result?._meta).toMatchObject({ 'toolgate/call_id': 'c-1', 'toolgate/replayed': true });
    expect(runs.run_tests).toBe(1);
  });

  it('params.idempotencyKey: the same key replays, another key runs; other arguments under one key conflict', async () => {
    const first = await post(modernCall(1, 'run_tests', { text: 'x' }, { idempotencyKey: 'k-1' }), modernHeaders('run_tests'));
    const retry = await post(legacyCall(2, 'run_tests', { text: 'x' }, { idempotencyKey: 'k-1' }));
    const other = await post(legacyCall(3, 'run_tests', { text: 'x' }, { idempotencyKey: 'k-2' }));
    const conflict = await post(legacyCall(4, 'run_tests', { text: 'y' }, { idempotencyKey: 'k-1' }));
    expect(first.body.result?._meta['toolgate/replayed']).toBeUndefined();
    expect(retry.body.result?._meta).toMatchObject({ 'toolgate/replayed': true });
    expect(other.body.result?._meta['toolgate/replayed']).toBeUndefined();
    expect(conflict.body.result?._meta).toMatchObject({ 'toolgate/status': 'conflict' });
    expect(runs.run_tests).toBe(2);
  });

  it("another principal in the same thread sending the same key is a new call: it cannot replay this one's result", async () => {
    const thread = { 'x-toolgate-thread': 'shared' };
    await post(legacyCall(1, 'run_tests', { text: 'x' }, { idempotencyKey: 'guessable' }), thread);
    const theirs = await post(legacyCall(1, 'run_tests', { text: 'x' }, { idempotencyKey: 'guessable' }), { ...thread, 'idempotency-key': 'k' }, 'mallory');
    expect(theirs.body.result?._meta['toolgate/replayed']).toBeUndefined();
    await post(legacyCall(2, 'run_tests', { text: 'y' }), { ...thread, 'idempotency-key': 'same-header' });
    expect((await post(legacyCall(2, 'run_tests', { text: 'y' }), { ...thread, 'idempotency-key': 'same-header' }, 'mallory')).body.result?._meta['toolgate/replayed']).toBeUndefined();
    expect(runs.run_tests).toBe(4);
  });

  it('the Idempotency-Key header: the same POST re-sent replays; a new request under it is a new call', async () => {
    const headers = { 'idempotency-key': 'retry-1' };
    await post(legacyCall(1, 'run_tests', { text: 'x' }), headers);
    expect((await post(legacyCall(1, 'run_tests', { text: 'x' }), headers)).body.result?._meta).toMatchObject({ 'toolgate/replayed': true });
    expect((await post(legacyCall(2, 'run_tests', { text: 'x' }), headers)).body.result?._meta['toolgate/replayed']).toBeUndefined();
    expect(runs.run_tests).toBe(2);
  });

  it('refuses a key that is not a string of 1-255 characters, with a message naming it', async () => {
    const modern = await post(modernCall(1, 'run_tests', { text: 'x' }, { idempotencyKey: 5 }), modernHeaders('run_tests'));
    expect(modern.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.idempotencyKey must be a string of 1-255 characters') });
    const legacy = await post(legacyCall(2, 'run_tests', { text: 'x' }, { idempotencyKey: 'k'.repeat(256) }));
    expect(legacy.body.error?.message).toContain('idempotencyKey must be 1-255 characters, got 256');
    const header = await gw.request('/mcp', { method: 'POST', key: 'agent', headers: { ...JSON_HEADERS, 'idempotency-key': 'k'.repeat(256) }, body: JSON.stringify(legacyCall(3, 'run_tests', { text: 'x' })) });
    expect(header.status).toBe(400);
    expect(await header.json()).toMatchObject({ error: { code: 'invalid_request', message: 'the Idempotency-Key header must be 1-255 characters' } });
    expect(runs.run_tests).toBeUndefined();
  });
});

describe('a parked call and its identical twin', () => {
  it('a re-sent parked call is not parked twice; its outcome is delivered once; then the identical call is a new call', async () => {
    for (const client of [await v1(), await v2()]) {
      const call = () => client.callTool({ name: 'save_note', arguments: { text: 'remember' } });
      const parked = await call();
      expect(parked._meta).toMatchObject({ 'toolgate/status': 'pending_approval' });
      const approvalId = parked._meta!['toolgate/approval_id'] as string;
      expect((await call())._meta).toMatchObject({ 'toolgate/status': 'pending_approval', 'toolgate/approval_id': approvalId, 'toolgate/call_id': parked._meta!['toolgate/call_id'] });
      expect(await pending()).toHaveLength(1);
      await approve(approvalId);
      // The outcome, delivered to the identical call (once).
      const outcome = await call();
      expect(outcome).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok', 'toolgate/replayed': true, 'toolgate/call_id': parked._meta!['toolgate/call_id'] } });
      // Delivered: the identical call is a new call, parked anew.
      const next = await call();
      expect(next._meta).toMatchObject({ 'toolgate/status': 'pending_approval' });
      expect(next._meta!['toolgate/approval_id']).not.toBe(approvalId);
      await gw.request(`/v1/approvals/${next._meta!['toolgate/approval_id']}`, { key: 'alice', json: { decision: 'reject' } });
      expect((await call())._meta).toMatchObject({ 'toolgate/status': 'denied' });
      // A rejection, too, is delivered once (the next client starts clean in this thread).
      expect((await call())._meta).toMatchObject({ 'toolgate/status': 'pending_approval' });
      await gw.request(`/v1/approvals/${(await pending())[0].id}`, { key: 'alice', json: { decision: 'reject' } });
      expect((await call())._meta).toMatchObject({ 'toolgate/status': 'denied' });
    }
    expect(runs.save_note).toBe(2);
  });

  it("another principal's identical call in the same thread is its own call: it never gets the twin's approval or outcome", async () => {
    const agent = await v1('agent', { 'x-toolgate-thread': 'shared' });
    const mallory = await v1('mallory', { 'x-toolgate-thread': 'shared' });
    const parked = await agent.callTool({ name: 'save_note', arguments: { text: 'secret plan' } });
    const theirs = await mallory.callTool({ name: 'save_note', arguments: { text: 'secret plan' } });
    expect(theirs._meta!['toolgate/approval_id']).not.toBe(parked._meta!['toolgate/approval_id']);
    expect((await pending()).map((a) => a.requested_by).sort()).toEqual(['agent', 'mallory']);
    await approve(parked._meta!['toolgate/approval_id'] as string);
    expect((await mallory.callTool({ name: 'save_note', arguments: { text: 'secret plan' } }))._meta).toMatchObject({ 'toolgate/status': 'pending_approval', 'toolgate/approval_id': theirs._meta!['toolgate/approval_id'] });
    expect((await agent.callTool({ name: 'save_note', arguments: { text: 'secret plan' } }))._meta).toMatchObject({ 'toolgate/status': 'ok' });
  });
});
