import { describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';

/**
 * Attacks on quotas and rate limits (issue 25): a call that reaches its tool by another road
 * than dispatch must still meet the limits.
 */
describe('limits under attack', () => {
  it('approved calls meet the concurrency cap: approving many parked calls at once runs no more than the cap', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const runs = { running: 0, most: 0, total: 0 };
    const router = new ToolRouter(undefined, 5000, {
      policy: { write: 'review' },
      store: new MemoryStore(),
      limits: [{ tools: 'refund', per: 'tenant', concurrency: 1 }],
    });
    router.register('refund', { tier: 'write', input_schema: { type: 'object', properties: { n: { type: 'number' } } } }, async () => {
      runs.total++;
      runs.most = Math.max(runs.most, ++runs.running);
      try {
        await gate;
        return 'refunded';
      } finally {
        runs.running--;
      }
    });
    const ctx = { thread_id: 't', principal: 'agent' };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const parked = await router.execute({ call_id: `r${i}`, name: 'refund', arguments: { n: i } }, ctx);
      expect(parked.status).toBe('pending_approval');
      ids.push(String(parked.error!.details!.approval_id));
    }
    const decided = ids.map((id) => router.submitApproval(id, { decision: 'approve', approver: 'boss' }));
    for (let i = 0; i < 50 && runs.total < 1; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(runs.most).toBe(1);
    open();
    const outcomes = await Promise.all(decided);
    const statuses = outcomes.map((o) => (o.ok ? o.result?.status : o.reason));
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'rate_limited')).toHaveLength(4);
    expect(runs.total).toBe(1);
    // Once the running call ended, its lease is free again: a new approved call runs.
    const next = await router.execute({ call_id: 'r9', name: 'refund', arguments: { n: 9 } }, ctx);
    const after = await router.submitApproval(String(next.error!.details!.approval_id), { decision: 'approve', approver: 'boss' });
    expect(after.ok && after.result?.status).toBe('ok');
  });
});
