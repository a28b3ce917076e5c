import { describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { verifyChain } from '../../lib/audit/verify.ts';

function setup() {
  const clock = { now: Date.now() };
  const store = new MemoryStore({ now: () => clock.now });
  let runs = 0;
  const router = new ToolRouter(undefined, 5000, { store, now: () => clock.now });
  router.register('deploy', { tier: 'execute', input_schema: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] } }, (args) => `deployed to ${String(args.env)} (#${++runs})`);
  const ctx = { principal: 'agent-1', thread_id: 'th-1', tenant: 'acme' };
  const call = (args: unknown = { env: 'prod' }, call_id = 'deploy-1') => router.execute({ call_id, name: 'deploy', arguments: args }, ctx);
  return { clock, store, router, call, runs: () => runs };
}

describe('deferred approvals', () => {
  it('parks a review call with an approval id and expiry, and runs nothing', async () => {
    const { call, runs, store } = setup();
    const parked = await call();
    expect(parked).toMatchObject({ status: 'pending_approval', is_error: true, error: { code: 'pending_approval', details: { approval_id: expect.stringMatching(/^apr_[0-9a-f]{24}$/), expires_at: expect.any(String) } } });
    expect(parked.content).toContain('needs a human\'s approval before it runs');
    expect(parked.content).toContain('GET /v1/calls/deploy-1?thread_id=th-1&wait=25');
    expect(runs()).toBe(0);
    const approval = (await store.get(`approval/${parked.error!.details!.approval_id}`))!.data;
    expect(approval).toMatchObject({ state: 'pending', tenant: 'acme', thread_id: 'th-1', call_id: 'deploy-1', tool: 'deploy', tier: 'execute', requested_by: 'agent-1', arguments: { env: 'prod' } });
    expect(Date.parse(String(approval.expires_at)) - Date.parse(String(approval.created_at))).toBe(3600_000);
  });

  it('re-sending the parked call returns the same approval, not a second one', async () => {
    const { call } = setup();
    const first = await call();
    const again = await call();
    expect(again.error?.details?.approval_id).toBe(first.error?.details?.approval_id);
  });

  it('approval runs the call exactly once; re-sends replay its result', async () => {
    const { call, router, runs } = setup();
    const id = String((await call()).error!.details!.approval_id);
    const decided = await router.submitApproval(id, { decision: 'approve', approver: 'alice' });
    expect(decided).toMatchObject({ ok: true, approval: { state: 'executed', decided_by: 'alice', result: { status: 'ok', content: 'deployed to prod (#1)' } }, result: { status: 'ok', content: 'deployed to prod (#1)' } });
    expect(await call()).toMatchObject({ status: 'ok', content: 'deployed to prod (#1)', replayed: true });
    const twice = await router.submitApproval(id, { decision: 'approve', approver: 'bob' });
    expect(twice).toMatchObject({ ok: false, reason: 'not_pending' });
    expect(runs()).toBe(1);
  });

  it('the requester cannot approve its own call', async () => {
    const { call, router, runs } = setup();
    const id = String((await call()).error!.details!.approval_id);
    expect(await router.submitApproval(id, { decision: 'approve', approver: 'agent-1' })).toMatchObject({ ok: false, reason: 'self_approval' });
    expect(runs()).toBe(0);
    expect((await router.submitApproval(id, { decision: 'approve', approver: 'alice' })).ok).toBe(true);
  });

  it('rejection ends the call as denied with the reason; it never runs', async () => {
    const { call, router, runs } = setup();
    const id = String((await call()).error!.details!.approval_id);
    const rejected = await router.submitApproval(id, { decision: 'reject', approver: 'alice', reason: 'not on a Friday' });
    expect(rejected).toMatchObject({ ok: true, approval: { state: 'rejected', decision_reason: 'not on a Friday' }, result: { status: 'denied' } });
    const again = await call();
    expect(again).toMatchObject({ status: 'denied', replayed: true });
    expect(again.content).toBe('A human (alice) rejected this call of `deploy`: not on a Friday. It did not run.');
    expect(runs()).toBe(0);
  });

  it('approve and reject racing: exactly one wins, and the call runs at most once', async () => {
    for (let round = 0; round < 10; round++) {
      const { call, router, runs } = setup();
      const id = String((await call()).error!.details!.approval_id);
      const outcomes = await Promise.all([
        router.submitApproval(id, { decision: 'approve', approver: 'alice' }),
        router.submitApproval(id, { decision: 'reject', approver: 'bob' }),
        router.submitApproval(id, { decision: 'approve', approver: 'carol' }),
      ]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(runs()).toBeLessThanOrEqual(1);
      const winner = outcomes.find((o) => o.ok);
      expect(runs()).toBe(winner?.ok && winner.approval.state === 'executed' ? 1 : 0);
    }
  });

  it('an approval expires: deciding it fails and the call ends as expired', async () => {
    const { call, router, clock, runs } = setup();
    const id = String((await call()).error!.details!.approval_id);
    clock.now += 3600_000 + 1;
    expect(await router.submitApproval(id, { decision: 'approve', approver: 'alice' })).toMatchObject({ ok: false, reason: 'expired' });
    const again = await call();
    expect(again.status).toBe('expired');
    expect(again.content).toContain('expired without running');
    expect(runs()).toBe(0);
  });

  it('an approval is bound to the exact arguments: changed arguments need a new call', async () => {
    const { call, router, runs } = setup();
    const id = String((await call({ env: 'staging' })).error!.details!.approval_id);
    await router.submitApproval(id, { decision: 'approve', approver: 'alice' });
    expect(await call({ env: 'prod' })).toMatchObject({ status: 'conflict' });
    const fresh = await call({ env: 'prod' }, 'deploy-2');
    expect(fresh.status).toBe('pending_approval');
    expect(fresh.error?.details?.approval_id).not.toBe(id);
    expect(runs()).toBe(1);
  });

  it('audits the whole story, and the thread chain verifies', async () => {
    const { call, router, store } = setup();
    const id = String((await call()).error!.details!.approval_id);
    await router.submitApproval(id, { decision: 'approve', approver: 'alice', reason: 'ship it' });
    const { envelopes } = await store.listAudit({ tenant: 'acme', thread_id: 'th-1' }, { limit: 100 });
    expect(envelopes.map((e) => [e.type, (e.data as { state?: string; status?: string }).state ?? (e.data as { status?: string }).status ?? (e.data as { decision?: string }).decision ?? ''])).toEqual([
      ['tool.call.request', ''],
      ['tool.call.decision', 'review'],
      ['tool.call.result', 'pending_approval'],
      ['tool.call.approval', 'approved'],
      ['tool.call.result', 'ok'],
    ]);
    expect(envelopes[3]).toMatchObject({ principal: 'alice', data: { approval_id: id, via: 'api', reason: 'ship it' } });
    expect(await verifyChain(envelopes)).toMatchObject({ ok: true, count: 5 });
  });

  it('library use: the approval is bound to the registered definition; a tool re-registered with another definition does not run', async () => {
    const { call, router, store, runs } = setup();
    const id = String((await call()).error!.details!.approval_id);
    expect((await store.get(`approval/${id}`))!.data).toMatchObject({ definition_hash: expect.stringMatching(/^[0-9a-f]{64}$/), target: { kind: 'code' } });
    let swapped = 0;
    router.register('deploy', { tier: 'execute', input_schema: { type: 'object' } }, () => `swapped #${++swapped}`, { replace: true });
    const decided = await router.submitApproval(id, { decision: 'approve', approver: 'alice' });
    expect(decided).toMatchObject({ ok: true, result: { status: 'expired', error: { code: 'expired', details: { reason: 'definition_changed' } } } });
    expect(swapped + runs()).toBe(0);
  });
});
