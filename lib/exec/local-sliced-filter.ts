import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done in one go before the event loop gets a turn. */
const SLICE_MS = 10;

/**
 * The items `keep` accepts, in order, tested a slice at a time: after each SLICE_MS of work the
 * event loop runs whatever waits (other calls, /healthz), so even a slow test over many items
 * never holds the process; past `timeoutMs` the filter gives up with `tooLong()`'s error.
 */
export async function filterInSlices<T>(items: readonly T[], keep: (item: T) => boolean, timeoutMs: number, tooLong: () => Error): Promise<T[]> {
  const kept: T[] = [];
  const deadline = performance.now() + timeoutMs;
  let sliceEnd = performance.now() + SLICE_MS;
  for (const item of items) {
    if (keep(item)) kept.push(item);
    const now = performance.now();
    if (now < sliceEnd) continue;
    if (now >= deadline) throw tooLong();
    await nextTurn();
    sliceEnd = performance.now() + SLICE_MS;
  }
  return kept;
}
