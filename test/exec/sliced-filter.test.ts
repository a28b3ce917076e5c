import { describe, expect, it } from 'vitest';
import { filterInSlices } from '../../lib/exec/local/sliced-filter.ts';

/** Holds the thread for `ms`, as a slow match would. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

describe('filterInSlices', () => {
  it('keeps what the test accepts, in order', async () => {
    expect(await filterInSlices([5, 2, 8, 1, 9], (n) => n > 3, { timeoutMs: 1_000, tooLong: () => new Error('too long') })).toEqual([5, 8, 9]);
  });

  it('lets the event loop run other work while a slow filter goes on', async () => {
    let testedWhenTimerRan: number | undefined;
    let tested = 0;
    setTimeout(() => (testedWhenTimerRan = tested), 0);
    const slowEven = (n: number) => {
      tested++;
      busy(1);
      return n % 2 === 0;
    };
    const kept = await filterInSlices(Array.from({ length: 40 }, (_, i) => i), slowEven, { timeoutMs: 10_000, tooLong: () => new Error('too long') });
    expect(kept).toHaveLength(20);
    // The timer ran between two slices, not after the last item.
    expect(testedWhenTimerRan).toBeGreaterThan(0);
    expect(testedWhenTimerRan).toBeLessThan(40);
  });

  it('gives up with the caller\'s error once the time is up', async () => {
    let tested = 0;
    const slowYes = () => {
      tested++;
      busy(1);
      return true;
    };
    const run = filterInSlices(Array.from({ length: 10_000 }, (_, i) => i), slowYes, { timeoutMs: 30, tooLong: () => new Error('took too long') });
    await expect(run).rejects.toThrow('took too long');
    expect(tested).toBeLessThan(10_000);
  });

  it('stops at the next slice once its signal is aborted, with the caller\'s error', async () => {
    const cancel = new AbortController();
    let tested = 0;
    const slowYes = () => {
      tested++;
      busy(1);
      return true;
    };
    const run = filterInSlices(Array.from({ length: 10_000 }, (_, i) => i), slowYes, {
      timeoutMs: 60_000,
      tooLong: () => new Error('took too long'),
      cancel: { signal: cancel.signal, error: () => new Error('nobody waits') },
    });
    setTimeout(() => cancel.abort(), 0);
    await expect(run).rejects.toThrow('nobody waits');
    expect(tested).toBeLessThan(10_000);
  });
});
