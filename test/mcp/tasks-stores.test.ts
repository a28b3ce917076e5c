import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { EVERY_STORE } from '../support/every-store.ts';
import type { RunningStore } from '../support/store-fixtures.ts';

/**
 * Approvals as tasks and twin pointers on every store adapter, through the gateway: a parked
 * call's task completes after approval, another's cancel withdraws it, and a re-sent parked call
 * finds its twin (test/stores/contract.ts checks the records themselves on each adapter).
 */

const MODERN = '2026-07-28';
const WITH_TASKS = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

describe.each(EVERY_STORE)('MCP tasks on the %s store', (_name, open) => {
  let opened: RunningStore;
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
