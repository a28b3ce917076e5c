import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore, type RunningStore } from '../support/store-fixtures.ts';

const ADAPTERS: Array<[string, () => Promise<RunningStore>]> = [
  ['sqlite', openSqliteStore],
  ['upstash', openUpstashStore],
  ['dynamodb', openDynamoDbStore],
];

/** 50 concurrent dispatches of one side-effecting call (same key) run the executor exactly once. */
describe.each(ADAPTERS)('exactly once on %s', (_name, open) => {
  let running: RunningStore;
  beforeAll(async () => { running = await open(); }, 60_000);
  afterAll(async () => { await running?.stop(); });

  it('runs the executor once; the others replay the result or see it in progress', async () => {
    let runs = 0;
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: running.store });
    router.register('transfer', { tier: 'write', input_schema: { type: 'object', properties: { amount: { type: 'number' } } } }, async (args) => {
      runs++;
      await new Promise((r) => setTimeout(r, 30));
      return `moved ${String(args.amount)}`;
    });
    const call = { call_id: 'transfer-1', name: 'transfer', arguments: { amount: 100 } };
    const results = await Promise.all(Array.from({ length: 50 }, () => router.execute(call, { thread_id: 'concurrency' })));
    expect(runs).toBe(1);
    const statuses = results.map((r) => (r.status === 'ok' ? (r.replayed ? 'replayed' : 'ran') : r.status));
    expect(statuses.filter((s) => s === 'ran')).toHaveLength(1);
    expect(statuses.every((s) => ['ran', 'replayed', 'in_progress'].includes(s))).toBe(true);
    expect(results.filter((r) => r.status === 'ok').every((r) => r.content === 'moved 100')).toBe(true);
    const later = await router.execute(call, { thread_id: 'concurrency' });
    expect(later).toMatchObject({ status: 'ok', replayed: true, content: 'moved 100' });
    expect(runs).toBe(1);
  });

  it('the audit chain of that thread has every call and verifies', async () => {
    const { verifyChain } = await import('../../lib/audit/verify.ts');
    const page = await running.store.listAudit({ tenant: 'local', thread_id: 'concurrency' }, { limit: 1000 });
    expect(page.envelopes).toHaveLength(51 * 3);
    expect(await verifyChain(page.envelopes)).toMatchObject({ ok: true, count: 153 });
  });
});
