import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowRetryAfterMs, windowUsed } from '../../lib/limits/counters.ts';
import { Limiter } from '../../lib/limits/limiter.ts';
import { countersOf } from '../../lib/limits/store-counters.ts';
import type { LimitCounters, WindowSpec } from '../../lib/stores/limit-counters.ts';
import { EVERY_STORE } from '../support/every-store.ts';
import type { RunningStore } from '../support/store-fixtures.ts';

const T0 = 1_800_000_000_000; // a window boundary for every window below
const fixed: WindowSpec = { window_ms: 60_000, sliding: false, max: 3 };
const sliding: WindowSpec = { window_ms: 60_000, sliding: true, max: 10 };

/** The LimitCounters port means the same on every store: the same steps give the same answers. */
describe.each(EVERY_STORE)('limit counters on %s', (_name, open) => {
  let running: RunningStore;
  let counters: LimitCounters;
  beforeAll(async () => {
    running = await open();
    counters = countersOf(running.store);
  }, 60_000);
  afterAll(async () => { await running?.stop(); });

  it('a fixed window admits max, refuses the next with the window as it stands, and starts again at the next window', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await counters.addToWindow('fixed', T0 + 1000 + i, fixed, 1));
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, false]);
    expect(answers[3]).toEqual({ ok: false, state: { window_start: T0, current: 3, previous: 0 } });
    expect(await counters.addToWindow('fixed', T0 + 60_000, fixed, 1)).toEqual({ ok: true, window_start: T0 + 60_000 });
    // A weight given back (a later limit refused the call) frees its place.
    await counters.subtractFromWindow('fixed', T0 + 60_000, fixed, 1);
    for (let i = 0; i < 3; i++) expect((await counters.addToWindow('fixed', T0 + 61_000, fixed, 1)).ok).toBe(true);
    expect((await counters.addToWindow('fixed', T0 + 61_000, fixed, 1)).ok).toBe(false);
  });

  it('a sliding window counts the previous window\'s share as it fades: half-way through the next window half of it still counts', async () => {
    for (let i = 0; i < 10; i++) expect((await counters.addToWindow('sliding', T0 + 100, sliding, 1)).ok).toBe(true);
    const halfway = T0 + 90_000;
    const admitted = [];
    for (let i = 0; i < 6; i++) admitted.push((await counters.addToWindow('sliding', halfway, sliding, 1)).ok);
    expect(admitted).toEqual([true, true, true, true, true, false]);
    const refused = await counters.addToWindow('sliding', halfway, sliding, 1);
    expect(refused).toEqual({ ok: false, state: { window_start: T0 + 60_000, current: 5, previous: 10 } });
    if (refused.ok) return;
    expect(windowUsed(refused.state, halfway, sliding)).toBe(10);
    // One more fits once the previous window's share drops to 4: 6 s later (at 60 % of the window).
    expect(windowRetryAfterMs(refused.state, halfway, sliding, 1)).toBe(6000);
    expect((await counters.addToWindow('sliding', halfway + 6000, sliding, 1)).ok).toBe(true);
  });

  it('the first call of a sliding window that the previous window\'s share fills is refused (no store admits it for being first)', async () => {
    for (let i = 0; i < 10; i++) expect((await counters.addToWindow('first', T0 + 100, sliding, 1)).ok).toBe(true);
    // 1 ms into the next window the previous 10 still count almost in full: 0 + 9.9998 + 1 > 10.
    expect(await counters.addToWindow('first', T0 + 60_001, sliding, 1)).toMatchObject({ ok: false, state: { window_start: T0 + 60_000, current: 0, previous: 10 } });
    expect((await counters.addToWindow('first', T0 + 60_001, sliding, 1)).ok).toBe(false);
    // Once a tenth of the window has passed, a tenth of it has faded: one call fits.
    expect((await counters.addToWindow('first', T0 + 66_000, sliding, 1)).ok).toBe(true);
  });

  it('a weighted call counts its weight; one that does not fit leaves the count as it was', async () => {
    const cost: WindowSpec = { window_ms: 60_000, sliding: false, max: 100 };
    expect((await counters.addToWindow('cost', T0, cost, 40)).ok).toBe(true);
    expect((await counters.addToWindow('cost', T0, cost, 40)).ok).toBe(true);
    expect(await counters.addToWindow('cost', T0, cost, 40)).toEqual({ ok: false, state: { window_start: T0, current: 80, previous: 0 } });
    expect((await counters.addToWindow('cost', T0, cost, 20)).ok).toBe(true);
  });

  it('a tenant\'s counter is its own: another tenant\'s limit of the same name, or a principal named like a key path, never shares it', async () => {
    const limits = [{ name: 'shared', tools: 'refund', per: 'principal' as const, max: 1, window_seconds: 3600 }];
    const limiter = new Limiter(limits, counters);
    expect((await limiter.takeForCall({ tenant: 'acme', principal: 'alice' }, 'refund', 1000)).ok).toBe(true);
    expect((await limiter.takeForCall({ tenant: 'acme', principal: 'alice' }, 'refund', 1000)).ok).toBe(false);
    expect((await limiter.takeForCall({ tenant: 'beta', principal: 'alice' }, 'refund', 1000)).ok).toBe(true);
    expect((await limiter.takeForCall({ tenant: 'acme', principal: 'alice/shared/principal/alice' }, 'refund', 1000)).ok).toBe(true);
    expect((await limiter.takeForCall({ tenant: 'acme/shared', principal: 'alice' }, 'refund', 1000)).ok).toBe(true);
  });

  it('a lease that is never released (the process crashed mid-call) stops counting when it expires', async () => {
    const now = Date.now();
    expect(await counters.addLease('crash', now, 1, 'lease-a', now + 100)).toEqual({ ok: true });
    expect(await counters.addLease('crash', now + 50, 1, 'lease-b', now + 150)).toEqual({ ok: false, used: 1 });
    expect(await counters.addLease('crash', now + 101, 1, 'lease-c', now + 5000)).toEqual({ ok: true });
    await counters.removeLease('crash', 'lease-c', now + 102);
    expect(await counters.addLease('crash', now + 103, 1, 'lease-d', now + 5000)).toEqual({ ok: true });
  });
});
