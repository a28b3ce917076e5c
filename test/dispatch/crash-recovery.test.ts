import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../lib/audit/verify.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { approvalIndex } from '../../lib/governance/approvals.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { atExecutingCommit, mortalStore, type DeathCondition } from '../helpers/mortal-store.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore, type RunningStore } from '../support/store-fixtures.ts';

/**
 * A process that stops mid-call, in one test process: the first router reaches the store through a
 * view that refuses everything once the process "dies" (nothing it does afterwards is stored),
 * and a second router (another process, after a restart) retries on the same store. The tests
 * that kill real processes are in test/e2e/crash-safety.test.ts; these show every store adapter
 * keeps the same promises.
 */
const ADAPTERS: Array<[string, () => Promise<RunningStore>]> = [
  ['memory', async () => ({ store: new MemoryStore(), stop: async () => {} })],
  ['sqlite', openSqliteStore],
  ['upstash', openUpstashStore],
  ['dynamodb', openDynamoDbStore],
];

const TIMEOUT_MS = 300;
const GRACE_MS = 200;
/** Past the deadline of a call that started now: its timeout plus the grace, and a margin. */
const PAST_DEADLINE_MS = TIMEOUT_MS + GRACE_MS + 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

describe.each(ADAPTERS)('crash recovery on %s', (_name, open) => {
  let running: RunningStore;
  let thread = 0;
  beforeAll(async () => { running = await open(); }, 60_000);
  afterAll(async () => { await running?.stop(); });

  /** Two processes on one store: the one that dies, and the one started after it. */
  function processes(when?: DeathCondition) {
    const first = mortalStore(running.store, when);
    const counts = { runs: 0 };
    const routers = [first.store, running.store].map((store) => {
      const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store, leaseGraceMs: GRACE_MS });
      // In the first process the tool starts, then the process dies while it runs.
      const hangOnFirstRun = () => {
        counts.runs++;
        if (store === first.store) {
          first.die();
          return new Promise<string>(() => {});
        }
        return `ran #${counts.runs}`;
      };
      router.register('transfer', { tier: 'write', timeout_ms: TIMEOUT_MS }, hangOnFirstRun);
      router.register('lookup', { tier: 'read', idempotency: 'call', timeout_ms: TIMEOUT_MS }, hangOnFirstRun);
      router.register('deploy', { tier: 'execute', timeout_ms: TIMEOUT_MS }, hangOnFirstRun);
      return router;
    });
    const context = { thread_id: `crash-${_name}-${++thread}`, tenant: 'acme', principal: 'agent' };
    return { dying: routers[0], restarted: routers[1], counts, context };
  }

  async function chainOf(thread_id: string) {
    const { envelopes } = await running.store.listAudit({ tenant: 'acme', thread_id }, { limit: 100 });
    return { envelopes, check: await verifyChain(envelopes) };
  }

  it('a write call stopped mid-run is reported indeterminate after its deadline, never run again, and audited', async () => {
    const { dying, restarted, counts, context } = processes();
    const call = { call_id: 'pay-1', name: 'transfer', arguments: { amount: 100 } };
    const stopped = dying.execute(call, context);
    await until(() => counts.runs === 1);
    // While the tool may still be running, a retry is told so.
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'in_progress', is_error: true });
    await stopped;
    await sleep(PAST_DEADLINE_MS);
    const retry = await restarted.execute(call, context);
    expect(retry).toMatchObject({ status: 'indeterminate', is_error: true, error: { code: 'indeterminate' } });
    expect(retry.content).toContain('may or may not have taken effect');
    expect(retry.content).toContain('Check whether it took effect before retrying');
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'indeterminate', replayed: true });
    expect(counts.runs).toBe(1);

    const { envelopes, check } = await chainOf(context.thread_id);
    expect(check).toMatchObject({ ok: true });
    // The dying process audited the request and decision before the side effect; its call's
    // first result is the settlement, and every result since says indeterminate.
    expect(envelopes.slice(0, 2).map((e) => e.type)).toEqual(['tool.call.request', 'tool.call.decision']);
    const results = envelopes.filter((e) => e.type === 'tool.call.result').map((e) => (e.data as { status: string }).status);
    expect(results).toEqual(['in_progress', 'indeterminate', 'indeterminate', 'indeterminate']);
    expect(envelopes.at(-1)).toMatchObject({ type: 'tool.call.result', data: { status: 'indeterminate' } });
  });

  it('a write call stopped before its side effect started is taken over after its lease, and runs once', async () => {
    const { dying, restarted, counts, context } = processes(atExecutingCommit);
    const call = { call_id: 'pay-2', name: 'transfer', arguments: { amount: 5 } };
    expect(await dying.execute(call, context)).toMatchObject({ status: 'unavailable' });
    expect(counts.runs).toBe(0);
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'in_progress' });
    await sleep(PAST_DEADLINE_MS);
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'ok', content: 'ran #1' });
    expect(counts.runs).toBe(1);
  });

  it('a read call stopped mid-run runs again after its lease', async () => {
    const { dying, restarted, counts, context } = processes();
    const call = { call_id: 'look-1', name: 'lookup', arguments: {} };
    await dying.execute(call, context);
    await sleep(PAST_DEADLINE_MS);
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'ok', content: 'ran #2' });
    expect(counts.runs).toBe(2);
  });

  it('an approval stopped mid-execution ends interrupted and audited; a re-sent call neither runs nor parks again', async () => {
    const { dying, restarted, counts, context } = processes();
    const call = { call_id: 'deploy-1', name: 'deploy', arguments: { env: 'prod' } };
    const parked = await dying.execute(call, context);
    const id = String(parked.error?.details?.approval_id);
    const stopped = dying.submitApproval(id, { decision: 'approve', approver: 'alice' });
    // It rejects once the tool's timeout passes, which on a loaded machine can come before the
    // assertion below is attached: handled here so that is not an unhandled rejection.
    stopped.catch(() => {});
    await until(() => counts.runs === 1);
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'in_progress' });
    await expect(stopped).rejects.toThrow(/the process died/);
    await sleep(PAST_DEADLINE_MS);
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'indeterminate', error: { details: { approval_id: id } } });
    expect((await running.store.get(`approval/${id}`))?.data).toMatchObject({ state: 'interrupted', decided_by: 'alice', result: { status: 'indeterminate', is_error: true } });
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'indeterminate', replayed: true });
    expect(await restarted.submitApproval(id, { decision: 'approve', approver: 'bob' })).toMatchObject({ ok: false, reason: 'not_pending' });
    expect(counts.runs).toBe(1);
    // One approval in this thread: the re-sent call did not park a second one.
    const indexed = await running.store.listIndex(approvalIndex('acme'), { limit: 100 });
    const threads = await Promise.all(indexed.map(async (a) => (await running.store.get(`approval/${a.member}`))?.data.thread_id));
    expect(threads.filter((t) => t === context.thread_id)).toHaveLength(1);

    const { envelopes, check } = await chainOf(context.thread_id);
    expect(check).toMatchObject({ ok: true });
    // The park's three envelopes, then the approval, audited before the call started.
    expect(envelopes[3]).toMatchObject({ type: 'tool.call.approval', principal: 'alice', data: { approval_id: id } });
    const results = envelopes.filter((e) => e.type === 'tool.call.result').map((e) => (e.data as { status: string }).status);
    expect(results).toEqual(['pending_approval', 'in_progress', 'indeterminate', 'indeterminate', 'indeterminate']);
  });

  it('an approval whose process stopped before the call started ends interrupted: it did not run', async () => {
    const { dying, restarted, counts, context } = processes(atExecutingCommit);
    const call = { call_id: 'deploy-2', name: 'deploy', arguments: { env: 'staging' } };
    const id = String((await dying.execute(call, context)).error?.details?.approval_id);
    await expect(dying.submitApproval(id, { decision: 'approve', approver: 'alice' })).rejects.toThrow(/the process died/);
    expect((await running.store.get(`approval/${id}`))?.data).toMatchObject({ state: 'approved' });
    await sleep(PAST_DEADLINE_MS);
    const resent = await restarted.execute(call, context);
    expect(resent).toMatchObject({ status: 'error', error: { details: { approval_id: id } } });
    expect(resent.content).toContain('so it did not run');
    expect((await running.store.get(`approval/${id}`))?.data).toMatchObject({ state: 'interrupted', result: { status: 'error' } });
    expect(await restarted.execute(call, context)).toMatchObject({ status: 'error', replayed: true });
    expect(counts.runs).toBe(0);
    const { envelopes, check } = await chainOf(context.thread_id);
    expect(check).toMatchObject({ ok: true });
    expect(envelopes.slice(3, 5).map((e) => e.type)).toEqual(['tool.call.approval', 'tool.call.result']);
  });
});
