/**
 * Waiting for a record another request writes, on whichever instance it lands: the store is
 * read every POLL_MS until the record is there, the wait is over, or `signal` aborts. A write
 * made by this very process wakes its waiters at once (`wake`), so on one Node process (or one
 * isolate) a rendezvous costs no polling delay; across instances the poll finds it.
 */

const POLL_MS = 200;

const waiters = new Map<string, Set<() => void>>();

/** Tells this process's waiters on `key` to read the store now. */
export function wake(key: string): void {
  for (const waiter of waiters.get(key) ?? []) waiter();
}

/** Why a wait ended without the record. */
export class WaitEndedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitEndedError';
  }
}

/**
 * Reads `read()` until it gives a value (every `pollMs`, POLL_MS unless given); rejects with
 * WaitEndedError once `until` (ms since epoch, by `now`) passes, or with the abort reason when
 * `signal` aborts.
 */
export async function waitFor<T>(key: string, read: () => Promise<T | undefined>, options: { signal?: AbortSignal; until: number; now: () => number; pollMs?: number }): Promise<T> {
  const { signal, until, now, pollMs = POLL_MS } = options;
  let nudge: () => void = () => {};
  // A wake-up while the store is being read must not wait out the next poll.
  let woken = false;
  const listeners = waiters.get(key) ?? new Set();
  const listener = () => {
    woken = true;
    nudge();
  };
  listeners.add(listener);
  waiters.set(key, listeners);
  try {
    for (;;) {
      signal?.throwIfAborted();
      woken = false;
      const found = await read();
      if (found !== undefined) return found;
      const left = until - now();
      if (left <= 0) throw new WaitEndedError('nothing came before the wait ended');
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(pollMs, left));
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          nudge = () => {};
          resolve();
        }
        nudge = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    listeners.delete(listener);
    if (listeners.size === 0) waiters.delete(key);
  }
}
