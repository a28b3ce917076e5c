import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done in one go before the event loop gets a turn. */
const SLICE_MS = 10;

export interface SliceLimits {
  timeoutMs: number;
  /** The error past timeoutMs. */
  tooLong: () => Error;
  /** Stops the filter at the next slice once `signal` is aborted (nobody waits for the answer any more), with `error()`. */
  cancel?: { signal: AbortSignal | undefined; error: () => Error };
}

/**
 * The items `keep` accepts, in order, tested a slice at a time: after each SLICE_MS of work the
 * event loop runs whatever waits (other calls, /healthz), so even a slow test over many items
 * never holds the process; past `timeoutMs` the filter gives up with `tooLong()`'s error.
 */
export async function filterInSlices<T>(items: readonly T[], keep: (item: T) => boolean, limits: SliceLimits): Promise<T[]> {
  const kept: T[] = [];
  const deadline = performance.now() + limits.timeoutMs;
  let sliceEnd = performance.now() + SLICE_MS;
  for (const item of items) {
    if (keep(item)) kept.push(item);
    const now = performance.now();
    if (now < sliceEnd) continue;
    if (now >= deadline) throw limits.tooLong();
    await nextTurn();
    if (limits.cancel?.signal?.aborted) throw limits.cancel.error();
    sliceEnd = performance.now() + SLICE_MS;
  }
  return kept;
}
