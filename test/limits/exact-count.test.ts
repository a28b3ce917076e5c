import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import type { ManifestLimit } from '../../lib/limits/limit.ts';
import { EVERY_STORE } from '../support/every-store.ts';
import type { RunningStore } from '../support/store-fixtures.ts';

/** A router whose `echo` counts its runs and holds each for a moment (or until `gate` opens), so the calls overlap. */
function countingRouter(store: RunningStore['store'], limits: ManifestLimit[], holdMs = 20, gate?: Promise<void>, now?: () => number) {
  const runs = { total: 0, running: 0, most: 0 };
  const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store, limits, now });
  const handler = async (args: Record<string, unknown>) => {
    runs.total++;
    runs.most = Math.max(runs.most, ++runs.running);
    try {
      await (gate ?? new Promise((r) => setTimeout(r, holdMs)));
      if (args.fail) throw new Error('the upstream failed');
      return `echo ${String(args.text)}`;
    } finally {
      runs.running--;
    }
  };
  router.register('echo', { tier: 'write', input_schema: { type: 'object', properties: { text: { type: 'string' }, fail: { type: 'boolean' } } } }, handler);
  router.register('echo_read', { tier: 'read', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }, handler);
  return { router, runs };
}

const settled = { count: 0 };

/** Counts the calls that answered, and waits (bounded) until `done` holds. */
async function waitFor(done: () => boolean, calls: Array<Promise<unknown>>): Promise<void> {
  settled.count = 0;
  for (const call of calls) void call.then(() => settled.count++);
  for (let i = 0; i < 3000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

const fifty = (router: ToolRouter, thread: string, name = 'echo', extra: Record<string, unknown> = {}) =>
  Promise.all(Array.from({ length: 50 }, (_, i) => router.execute({ call_id: `c${i}`, name, arguments: { text: String(i), ...extra } }, { thread_id: thread, principal: 'alice' })));

describe.each(EVERY_STORE)('limits on %s', (_name, open) => {
  let running: RunningStore;
  beforeAll(async () => { running = await open(); }, 60_000);
  afterAll(async () => { await running?.stop(); });

  it('50 concurrent calls against a limit of 10 per principal per hour: exactly 10 run', async () => {
    const { router, runs } = countingRouter(running.store, [{ tools: 'echo', per: 'principal', max: 10, window_seconds: 3600 }]);
    const results = await fifty(router, 'window');
    expect(runs.total).toBe(10);
    expect(results.filter((r) => r.status === 'ok')).toHaveLength(10);
    const limited = results.filter((r) => r.status === 'rate_limited');
    expect(limited).toHaveLength(40);
    expect(limited[0]).toMatchObject({ is_error: true, error: { code: 'rate_limited', details: { max: 10, per: 'principal', window_seconds: 3600 } } });
    expect(limited[0].content).toMatch(/at most 10 calls of echo per principal per 1 hour.*Retry after/);
    expect(limited[0].error!.details!.retry_after_seconds).toBeGreaterThan(0);
    // Another principal has its own count.
    const bob = await router.execute({ call_id: 'b1', name: 'echo', arguments: { text: 'bob' } }, { thread_id: 'window', principal: 'bob' });
    expect(bob.status).toBe('ok');
  }, 60_000);

  it('a replay of a call that ran does not count again; a refused call runs once the limit allows', async () => {
    const clock = { now: Date.now() };
    const { router, runs } = countingRouter(running.store, [{ tools: 'echo', per: 'principal', max: 2, window_seconds: 3600, name: 'replays' }], 0, undefined, () => clock.now);
    const call = { call_id: 'once', name: 'echo', arguments: { text: 'x' } };
    const first = await router.execute(call, { thread_id: 'replay', principal: 'carol' });
    const again = await router.execute(call, { thread_id: 'replay', principal: 'carol' });
    expect([first.status, again.status, again.replayed]).toEqual(['ok', 'ok', true]);
    expect((await router.execute({ ...call, call_id: 'second' }, { thread_id: 'replay', principal: 'carol' })).status).toBe('ok');
    const third = await router.execute({ ...call, call_id: 'third' }, { thread_id: 'replay', principal: 'carol' });
    expect(third.status).toBe('rate_limited');
    // Its claim was given back: the same call id is refused again (not "in progress", not a replay of the refusal).
    expect((await router.execute({ ...call, call_id: 'third' }, { thread_id: 'replay', principal: 'carol' })).status).toBe('rate_limited');
    expect(runs.total).toBe(2);
    clock.now += 3600_000;
    expect((await router.execute({ ...call, call_id: 'third' }, { thread_id: 'replay', principal: 'carol' })).status).toBe('ok');
    expect(runs.total).toBe(3);
  }, 60_000);

  it('a concurrency cap of 10: of 50 concurrent calls exactly 10 run while those hold; leases end on success and on failure', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { router, runs } = countingRouter(running.store, [{ tools: 'echo*', per: 'tenant', concurrency: 10 }], 0, gate);
    const calls = Array.from({ length: 50 }, (_, i) => router.execute({ call_id: `k${i}`, name: 'echo_read', arguments: { text: String(i) } }, { thread_id: 'concurrency', principal: 'alice' }));
    // The ten that run hold their leases until every refused call has its answer.
    await waitFor(() => runs.total === 10 && settled.count === 40, calls);
    open();
    const results = await Promise.all(calls);
    expect(runs.total).toBe(10);
    expect(runs.most).toBe(10);
    expect(results.filter((r) => r.status === 'ok')).toHaveLength(10);
    const limited = results.filter((r) => r.status === 'rate_limited');
    expect(limited).toHaveLength(40);
    expect(limited[0].content).toMatch(/at most 10 calls of echo\* running at once for this tenant/);
    // Every lease was released, after success and after failure: ten more fail, then ten more run.
    const failing = await fifty(countingRouter(running.store, [{ tools: 'echo*', per: 'tenant', concurrency: 10 }], 100).router, 'concurrency-fail', 'echo', { fail: true });
    expect(failing.filter((r) => r.status === 'error').length).toBeGreaterThanOrEqual(10);
    const after = countingRouter(running.store, [{ tools: 'echo*', per: 'tenant', concurrency: 10 }], 100);
    const again = await Promise.all(Array.from({ length: 10 }, (_, i) => after.router.execute({ call_id: `a${i}`, name: 'echo_read', arguments: { text: 'again' } }, { thread_id: 'concurrency-after' })));
    expect(again.map((r) => r.status)).toEqual(Array(10).fill('ok'));
  }, 60_000);
});
