import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import type { Store } from '../../lib/stores/store.ts';
import { UpstashStore } from '../../lib/stores/upstash/upstash-store.ts';
import { startRedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../../scripts/dev/upstash-bridge.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';

/**
 * Approvals as tasks and twin pointers on every store adapter, through the gateway: a parked
 * call's task completes after approval, another's cancel withdraws it, and a re-sent parked call
 * finds its twin (test/stores/contract.ts checks the records themselves on each adapter).
 */

interface OpenedStore {
  store: Store;
  stop(): Promise<void>;
}

const ADAPTERS: Array<[string, () => Promise<OpenedStore>]> = [
  ['memory', async () => ({ store: new MemoryStore(), stop: async () => {} })],
  ['sqlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-tasks-'));
    const store = new SqliteStore(join(dir, 'store.db'));
    return { store, stop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  }],
  ['upstash (redis-server behind the REST bridge)', async () => {
    const redis = await startRedisServer();
    const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'tasks-token' });
    const store = new UpstashStore({ url: bridge.url, token: bridge.token });
    return { store, stop: async () => { await store.close(); await bridge.close(); await redis.stop(); } };
  }],
  ['dynamodb (dynalite)', async () => {
    const { store, dynalite } = await openDynamoDbStore();
    return { store, stop: async () => { await store.close(); await dynalite.stop(); } };
  }],
];

const MODERN = '2026-07-28';
const WITH_TASKS = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

describe.each(ADAPTERS)('MCP tasks on the %s store', (_name, open) => {
  let opened: OpenedStore;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    opened = await open();
    const manifest = validManifest({ tenant: 'acme', policy: { write: 'review' }, tools: [{ name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }] });
    gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } }, { store: opened.store });
  }, 60_000);
  afterAll(async () => {
    await opened?.stop();
  });

  let id = 1;
  async function rpc(method: string, params: Record<string, unknown>, name: string) {
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': name };
    const response = await gw.request('/mcp', { method: 'POST', key: 'agent', headers, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: WITH_TASKS } }) });
    return ((await response.json()) as { result: Record<string, unknown> & { result?: { isError: boolean; content: Array<{ text: string }> } } }).result;
  }
  const park = (text: string) => rpc('tools/call', { name: 'save_note', arguments: { text } }, 'save_note');
  const pendingId = async () => ((await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json()) as { approvals: Array<{ id: string }> }).approvals[0].id;

  it('a parked call is one task, re-sent or not; it completes once approved', async () => {
    const created = await park('kept');
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect((await park('kept')).taskId).toBe(created.taskId);
    await gw.request(`/v1/approvals/${await pendingId()}`, { key: 'alice', json: { decision: 'approve' } });
    const done = await rpc('tasks/get', { taskId: created.taskId }, created.taskId as string);
    expect(done).toMatchObject({ status: 'completed', result: { isError: false, content: [{ text: 'kept' }] } });
  });

  it('tasks/cancel withdraws the approval', async () => {
    const created = await park('dropped');
    await rpc('tasks/cancel', { taskId: created.taskId }, created.taskId as string);
    expect(await rpc('tasks/get', { taskId: created.taskId }, created.taskId as string)).toMatchObject({ status: 'cancelled' });
    expect((await (await gw.request('/v1/approvals?state=withdrawn', { key: 'alice' })).json()).approvals).toHaveLength(1);
  });
});
