import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { EVERY_STORE } from '../support/every-store.ts';
import type { RunningStore } from '../support/store-fixtures.ts';

/**
 * Principal-bound call records on every store adapter, through the gateway: each adapter's claim
 * hands back the existing record with its principal, so a caller's own retry replays, a parked
 * call re-sent finds its approval, and another principal naming the same thread and call id gets
 * a conflict and a 404, never the result (principal-bound.test.ts covers each path in depth).
 */
describe.each(EVERY_STORE)('principal-bound records on the %s store', (_name, open) => {
  let opened: RunningStore;
  let gw: Awaited<ReturnType<typeof testGateway>>;
  let runs = 0;

  beforeAll(async () => {
    opened = await open();
    const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const manifest = validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'grant', execute: 'review' },
      tools: [
        { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
        { name: 'run_job', tier: 'execute', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
      ],
    });
    gw = await testGateway([manifest], { alice: { tenant: 'acme', principal: 'alice' }, bob: { tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'] } }, { store: opened.store });
    const runtime = (await gw.tenants.runtime('acme'))!;
    for (const name of ['save_note', 'run_job']) {
      const tool = runtime.registry.get(name)!;
      runtime.registry.register({ ...tool, execute: async (_args, ctx) => `secret of ${ctx.principal} #${++runs}` }, { replace: true });
    }
  }, 60_000);
  afterAll(async () => {
    await opened?.stop();
  });

  const dispatch = async (key: string, call_id: string, name = 'save_note') =>
    ((await (await gw.request('/v1/dispatch', { key, json: { thread_id: 'shared', calls: [{ call_id, name, arguments: { text: 'x' } }] } })).json()) as { results: Array<Record<string, unknown> & { error?: { details: { approval_id: string } } }> }).results[0];
  const poll = (key: string, call_id: string) => gw.request(`/v1/calls/${call_id}?thread_id=shared`, { key });

  it("replays a caller's own call, and answers another principal naming it with a conflict and a 404", async () => {
    expect(await dispatch('alice', 'c-1')).toMatchObject({ status: 'ok', content: 'secret of alice #1' });
    expect(await dispatch('alice', 'c-1')).toMatchObject({ status: 'ok', replayed: true, content: 'secret of alice #1' });
    const stolen = await dispatch('bob', 'c-1');
    expect(stolen).toMatchObject({ status: 'conflict' });
    expect(JSON.stringify(stolen)).not.toContain('secret');
    expect((await poll('bob', 'c-1')).status).toBe(404);
    expect(await (await poll('alice', 'c-1')).json()).toMatchObject({ status: 'ok' });
    expect(runs).toBe(1);
  });

  it("keeps a parked call its requester's: re-sent it is still pending, approved it is the requester's result", async () => {
    const parked = await dispatch('alice', 'p-1', 'run_job');
    expect(parked).toMatchObject({ status: 'pending_approval' });
    expect(await dispatch('alice', 'p-1', 'run_job')).toMatchObject({ status: 'pending_approval' });
    expect(await dispatch('bob', 'p-1', 'run_job')).toMatchObject({ status: 'conflict' });
    expect((await gw.request(`/v1/approvals/${parked.error!.details.approval_id}`, { key: 'bob', json: { decision: 'approve' } })).status).toBe(200);
    expect(await (await poll('alice', 'p-1')).json()).toMatchObject({ status: 'ok', result: { content: 'secret of alice #2' } });
    expect((await poll('bob', 'p-1')).status).toBe(404);
  });
});
