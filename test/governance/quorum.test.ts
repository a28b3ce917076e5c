import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../lib/audit/verify.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { policyGovernor } from '../../lib/governance/policy.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import type { Store } from '../../lib/stores/store.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore, type RunningStore } from '../support/store-fixtures.ts';

const openMemoryStore = async (): Promise<RunningStore> => ({ store: new MemoryStore(), stop: async () => {} });

const ADAPTERS: Array<[string, () => Promise<RunningStore>]> = [
  ['memory', openMemoryStore],
  ['sqlite', openSqliteStore],
  ['upstash', openUpstashStore],
  ['dynamodb', openDynamoDbStore],
];

let thread = 0;

function quorumRouter(store: Store, quorum: number) {
  let runs = 0;
  const router = new ToolRouter(undefined, 5000, { store, governor: policyGovernor({ write: 'review' }, new Map(), { default: quorum }) });
  router.register('deploy', { tier: 'write', input_schema: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] } }, async (args) => {
    runs++;
    await new Promise((r) => setTimeout(r, 20));
    return `deployed to ${String(args.env)}`;
  });
  const ctx = { principal: 'agent', thread_id: `quorum-${thread++}`, tenant: 'acme' };
  const park = async () => String((await router.execute({ call_id: 'd1', name: 'deploy', arguments: { env: 'prod' } }, ctx)).error!.details!.approval_id);
  const approve = (id: string, approver: string, reason?: string) => router.submitApproval(id, { decision: 'approve', approver, reason });
  return { router, ctx, park, approve, runs: () => runs, resend: () => router.execute({ call_id: 'd1', name: 'deploy', arguments: { env: 'prod' } }, ctx) };
}

/** Racing decisions on one approval are all counted or refused, never lost: a compare-and-set on its revision, on every adapter. */
describe.each(ADAPTERS)('quorum races on %s', (_name, open) => {
  let running: RunningStore;
  beforeAll(async () => { running = await open(); }, 60_000);
  afterAll(async () => { await running?.stop(); });

  it('twelve approvers at once with a quorum of three: exactly three counted, the call runs once', async () => {
    const q = quorumRouter(running.store, 3);
    const id = await q.park();
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => q.approve(id, `approver-${i}`)));
    const counted = outcomes.filter((o) => o.ok);
    expect(counted).toHaveLength(3);
    expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === 'not_pending')).toBe(true);
    // Exactly one of the counted decisions completed the quorum and carries the result.
    expect(counted.filter((o) => o.ok && o.result)).toHaveLength(1);
    expect(q.runs()).toBe(1);
    const stored = (await running.store.get(`approval/${id}`))!.data;
    expect(stored.state).toBe('executed');
    const decisions = stored.decisions as Array<{ by: string; decision: string }>;
    expect(decisions).toHaveLength(3);
    expect(new Set(decisions.map((d) => d.by)).size).toBe(3);
    expect(await q.resend()).toMatchObject({ status: 'ok', replayed: true, content: 'deployed to prod' });
    // One approval envelope per counted decision, and the chain holds.
    const audit = await running.store.listAudit({ tenant: 'acme', thread_id: q.ctx.thread_id }, { limit: 100 });
    const approvals = audit.envelopes.filter((e) => e.type === 'tool.call.approval');
    expect(approvals.map((e) => (e.data as { state: string }).state).sort()).toEqual(['approved', 'pending', 'pending']);
    expect(approvals.map((e) => e.principal).sort()).toEqual(decisions.map((d) => d.by).sort());
    expect(await verifyChain(audit.envelopes)).toMatchObject({ ok: true });
  });

  it('one approver clicking eight times at once counts once', async () => {
    const q = quorumRouter(running.store, 2);
    const id = await q.park();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => q.approve(id, 'alice')));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.reason === 'already_decided')).toHaveLength(7);
    expect(q.runs()).toBe(0);
    const stored = (await running.store.get(`approval/${id}`))!.data;
    expect(stored).toMatchObject({ state: 'pending', decisions: [{ by: 'alice', decision: 'approve' }] });
    expect((stored.decisions as unknown[]).length).toBe(1);
  });

  it('approvals and a rejection racing: either the rejection ends it and nothing runs, or the quorum ran it once and the rejection came too late', async () => {
    const q = quorumRouter(running.store, 2);
    const id = await q.park();
    const [a, b, r] = await Promise.all([q.approve(id, 'alice'), q.approve(id, 'bob'), q.router.submitApproval(id, { decision: 'reject', approver: 'carol', reason: 'no' })]);
    const stored = (await running.store.get(`approval/${id}`))!.data;
    if (stored.state === 'rejected') {
      expect(r.ok).toBe(true);
      expect(q.runs()).toBe(0);
      expect(await q.resend()).toMatchObject({ status: 'denied' });
    } else {
      expect(stored.state).toBe('executed');
      expect([a.ok, b.ok, r.ok]).toEqual([true, true, false]);
      expect(q.runs()).toBe(1);
    }
  });
});

describe('quorum rules (memory store)', () => {
  it('a quorum of two: the first approval reports progress and runs nothing; the second runs the call once', async () => {
    const q = quorumRouter(new MemoryStore(), 2);
    const id = await q.park();
    const first = await q.approve(id, 'alice', 'fine by me');
    expect(first).toMatchObject({ ok: true, approval: { state: 'pending', quorum: 2, decisions: [{ decision: 'approve', by: 'alice', via: 'api', reason: 'fine by me' }] } });
    expect(first.ok && first.result).toBeUndefined();
    expect(q.runs()).toBe(0);
    expect(await q.resend()).toMatchObject({ status: 'pending_approval' });
    const second = await q.approve(id, 'bob');
    expect(second).toMatchObject({ ok: true, approval: { state: 'executed', decided_by: 'bob' }, result: { status: 'ok' } });
    expect(q.runs()).toBe(1);
    // The reasons reach the model with the result.
    expect(second.ok && second.result?.content).toBe('deployed to prod\n\n[Approved by alice: "fine by me"; bob]');
  });

  it('the requester never counts; the same approver twice is refused; a rejection after one approval ends it', async () => {
    const q = quorumRouter(new MemoryStore(), 2);
    const id = await q.park();
    expect(await q.approve(id, 'agent')).toMatchObject({ ok: false, reason: 'self_approval' });
    expect(await q.approve(id, 'alice')).toMatchObject({ ok: true, approval: { state: 'pending' } });
    expect(await q.approve(id, 'alice')).toMatchObject({ ok: false, reason: 'already_decided' });
    const rejected = await q.router.submitApproval(id, { decision: 'reject', approver: 'bob', reason: 'wrong window' });
    expect(rejected).toMatchObject({ ok: true, approval: { state: 'rejected', decided_by: 'bob', decision_reason: 'wrong window' }, result: { status: 'denied' } });
    expect(rejected.ok && rejected.result?.content).toContain('rejected this call of `deploy`: wrong window');
    expect(await q.approve(id, 'carol')).toMatchObject({ ok: false, reason: 'not_pending' });
    expect(q.runs()).toBe(0);
  });

  it("long reasons are cut before they reach the model", async () => {
    const q = quorumRouter(new MemoryStore(), 1);
    const id = await q.park();
    const decided = await q.approve(id, 'alice', 'x'.repeat(5000));
    const content = decided.ok ? decided.result!.content : '';
    expect(content.startsWith('deployed to prod\n\n[Approved by alice: "')).toBe(true);
    expect(content.length).toBeLessThan('deployed to prod'.length + 260);
  });
});
