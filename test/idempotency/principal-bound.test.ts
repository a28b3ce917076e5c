import { beforeEach, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { atExecutingCommit, mortalStore } from '../helpers/mortal-store.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';

/**
 * A call's stored record answers only the principal whose call it is. Its key is a tenant, a
 * thread and a call id (or the arguments): what another principal of the tenant may know, guess
 * or choose (a thread is the client's to name). Before records named their principal, principal B
 * sending A's thread and call id (on /v1/dispatch, or `_meta["toolgate/call_id"]` over MCP) with
 * A's arguments got A's stored result replayed, and could poll it on GET /v1/calls.
 */

let gw: Awaited<ReturnType<typeof testGateway>>;
let runs = 0;

beforeEach(async () => {
  runs = 0;
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'grant', execute: 'deny' },
    tools: [
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
      { name: 'save_once', tier: 'write', idempotency: 'content', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
    ],
  });
  gw = await testGateway([manifest], { alice: { tenant: 'acme', principal: 'alice' }, bob: { tenant: 'acme', principal: 'bob' } });
  const runtime = (await gw.tenants.runtime('acme'))!;
  for (const name of ['save_note', 'save_once']) {
    const tool = runtime.registry.get(name)!;
    // Each run answers what only its caller may read.
    runtime.registry.register({ ...tool, execute: async (_args, ctx) => `secret of ${ctx.principal} #${++runs}` }, { replace: true });
  }
});

const dispatch = async (key: string, call: Record<string, unknown>) => (await gw.request('/v1/dispatch', { key, json: { thread_id: 'shared-thread', calls: [call] } })).json();

const mcpCall = async (key: string, meta: Record<string, unknown>) => {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'save_note', arguments: { text: 'x' }, _meta: meta } };
  return (await gw.request('/mcp', { key, json: body, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' } })).json();
};

describe("another principal's stored call", () => {
  it('is not replayed on /v1/dispatch to a caller naming its thread and call id: a conflict, and nothing of it', async () => {
    const first = await dispatch('alice', { call_id: 'c-1', name: 'save_note', arguments: { text: 'x' } });
    expect(first.results[0]).toMatchObject({ status: 'ok', content: 'secret of alice #1' });
    const stolen = await dispatch('bob', { call_id: 'c-1', name: 'save_note', arguments: { text: 'x' } });
    expect(stolen.results[0]).toMatchObject({ status: 'conflict', is_error: true });
    expect(JSON.stringify(stolen)).not.toContain('secret');
    expect(stolen.results[0].content).toMatch(/Another caller's call of `save_note` already holds this idempotency key/);
    // Its own retry still replays, and nothing ran again.
    const retried = await dispatch('alice', { call_id: 'c-1', name: 'save_note', arguments: { text: 'x' } });
    expect(retried.results[0]).toMatchObject({ status: 'ok', content: 'secret of alice #1', replayed: true });
    expect(runs).toBe(1);
  });

  it('is not replayed by content (a tool keyed by its arguments) to another caller in the same thread', async () => {
    await dispatch('alice', { call_id: 'a-1', name: 'save_once', arguments: { text: 'x' } });
    const stolen = await dispatch('bob', { call_id: 'b-1', name: 'save_once', arguments: { text: 'x' } });
    expect(stolen.results[0]).toMatchObject({ status: 'conflict' });
    expect(JSON.stringify(stolen)).not.toContain('secret');
  });

  it('is not replayed over MCP to a caller naming its thread and call id in _meta', async () => {
    const meta = { 'toolgate/thread_id': 'shared-thread', 'toolgate/call_id': 'mcp-c-1' };
    const first = await mcpCall('alice', meta);
    expect(first.result.content).toEqual([{ type: 'text', text: 'secret of alice #1' }]);
    const stolen = await mcpCall('bob', meta);
    expect(stolen.result).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'conflict' } });
    expect(JSON.stringify(stolen)).not.toContain('secret');
    expect(runs).toBe(1);
  });

  it('is unknown to another caller polling GET /v1/calls (404), and to one posting a client result for it', async () => {
    await dispatch('alice', { call_id: 'c-2', name: 'save_note', arguments: { text: 'x' } });
    const own = await gw.request('/v1/calls/c-2?thread_id=shared-thread', { key: 'alice' });
    expect(((await own.json()) as { status: string }).status).toBe('ok');
    const polled = await gw.request('/v1/calls/c-2?thread_id=shared-thread', { key: 'bob' });
    expect(polled.status).toBe(404);
    expect(await polled.text()).not.toContain('secret');
    const posted = await gw.request('/v1/calls/c-2/result', { key: 'bob', json: { thread_id: 'shared-thread', content: [{ type: 'text', text: 'forged' }] } });
    expect(posted.status).toBe(404);
  });
});

describe('a completed call recorded before records named their principal', () => {
  it('is replayed to no one; its own retry is warned that it may have run (not just sent off to run it under a new id)', async () => {
    expect((await dispatch('alice', { call_id: 'old-1', name: 'save_note', arguments: { text: 'x' } })).results[0]).toMatchObject({ status: 'ok' });
    const key = 'idem/acme/shared-thread/call/old-1';
    const record = (await gw.store.get(key))!;
    const { principal: _principal, ...data } = record.data;
    await gw.store.put(key, { ...record, data });
    const retried = (await dispatch('alice', { call_id: 'old-1', name: 'save_note', arguments: { text: 'x' } })).results[0];
    expect(retried).toMatchObject({ status: 'conflict', error: { details: { unattributed: true } } });
    expect(retried.content).toMatch(/If it was yours, it may have run already .*: check its effect before calling again with a new call_id/);
    expect(JSON.stringify(retried)).not.toContain('secret');
    expect(runs).toBe(1);
  });
});

describe('a parked call written before records named their principal', () => {
  it('runs once when approved, and its requester (named by the approval) then polls its outcome', async () => {
    const manifest = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'deny' }, tools: [{ name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] });
    const old = await testGateway([manifest], { alice: { tenant: 'acme', principal: 'alice' }, bob: { tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'] } });
    const runtime = (await old.tenants.runtime('acme'))!;
    const tool = runtime.registry.get('save_note')!;
    let ran = 0;
    runtime.registry.register({ ...tool, execute: async () => `saved #${++ran}` }, { replace: true });
    const parked = await (await old.request('/v1/dispatch', { key: 'alice', json: { thread_id: 't', calls: [{ call_id: 'p-1', name: 'save_note', arguments: { text: 'x' } }] } })).json();
    const approvalId = parked.results[0].error.details.approval_id;
    // The record as an older toolgate wrote it: no principal.
    const key = 'idem/acme/t/call/p-1';
    const record = (await old.store.get(key))!;
    const { principal: _principal, ...data } = record.data;
    await old.store.put(key, { ...record, data });
    expect((await old.request(`/v1/approvals/${approvalId}`, { key: 'bob', json: { decision: 'approve' } })).status).toBe(200);
    expect(ran).toBe(1);
    const polled = await (await old.request('/v1/calls/p-1?thread_id=t', { key: 'alice' })).json();
    expect(polled).toMatchObject({ status: 'ok', result: { content: 'saved #1' } });
    expect((await old.request('/v1/calls/p-1?thread_id=t', { key: 'bob' })).status).toBe(404);
  });
});

describe("a key another principal's call took over after this principal's record expired", () => {
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  const publish = { name: 'publish', tier: 'write', timeout_ms: 600, executor: { kind: 'builtin', name: 'echo' }, input_schema: text };
  const manifest = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'deny' }, tools: [publish] });
  const keys = { alice: { tenant: 'acme', principal: 'alice' }, mallory: { tenant: 'acme', principal: 'mallory' }, bob: { tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'] } };
  const KEY = 'idem/acme/shared/call/p-1';
  const send = async (on: Awaited<ReturnType<typeof testGateway>>, key: string, words: string) =>
    (await (await on.request('/v1/dispatch', { key, json: { thread_id: 'shared', calls: [{ call_id: 'p-1', name: 'publish', arguments: { text: words } }] } })).json()).results[0];
  const decide = (on: Awaited<ReturnType<typeof testGateway>>, id: string, decision: string) => on.request(`/v1/approvals/${id}`, { key: 'bob', json: { decision } });

  it("deciding the old call's approval leaves the other principal's parked call alone: approved, it runs with its own result", async () => {
    const both = await testGateway([manifest], keys);
    const old = (await send(both, 'alice', 'old')).error.details.approval_id;
    // Alice's parked record expires (a day after her approval's expiry); the key is free.
    expect(await both.store.remove(KEY, { state: 'parked' })).toBe(true);
    const theirs = await send(both, 'mallory', 'mallory note');
    expect(theirs.status).toBe('pending_approval');
    await decide(both, old, 'reject');
    const approved = await (await decide(both, theirs.error.details.approval_id, 'approve')).json();
    expect(approved).toMatchObject({ approval: { state: 'executed' }, result: { status: 'ok', content: 'mallory note' } });
    expect(await (await both.request('/v1/calls/p-1?thread_id=shared', { key: 'mallory' })).json()).toMatchObject({ status: 'ok', result: { content: 'mallory note' } });
  });

  it("an interrupted approval of the old call is not concluded with the other principal's result", async () => {
    const raw = new MemoryStore();
    const env = { TOOLGATE_LEASE_GRACE_MS: '0' };
    const dying = await testGateway([manifest], keys, { store: mortalStore(raw, atExecutingCommit).store, env });
    const restarted = await testGateway([manifest], {}, { store: raw, env });
    const old = (await send(dying, 'alice', 'old')).error.details.approval_id;
    // Approved, and the gateway stops before the call starts: the approval stays `approved`.
    expect((await decide(dying, old, 'approve')).status).toBe(503);
    expect(await raw.remove(KEY, { state: 'parked' })).toBe(true);
    const theirs = await send(restarted, 'mallory', 'planted by mallory');
    expect((await decide(restarted, theirs.error.details.approval_id, 'approve')).status).toBe(200);
    // Past the approved call's timeout, looking at its approval settles it.
    await new Promise((r) => setTimeout(r, 800));
    const seen = await (await restarted.request(`/v1/approvals/${old}`, { key: 'alice' })).json();
    expect(seen).toMatchObject({ state: 'interrupted' });
    expect(JSON.stringify(seen)).not.toContain('planted by mallory');
  });
});
