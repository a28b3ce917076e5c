/**
 * The counters quotas and rate limits need (lib/limits), as one atomic step each. A store that
 * has a cheaper way than compare-and-set over records (one Lua script, one conditional update)
 * offers it through `Store.limitCounters`; the others get lib/limits/record-counters.ts.
 */

/**
 * A fixed window's count and the one before it (ms since epoch). "fixed" limits count the
 * current window; "sliding" ones add the previous window's count weighted by how much of it
 * still overlaps the last window_ms (the sliding-window-counter estimate).
 */
export interface WindowState {
  window_start: number;
  current: number;
  previous: number;
}

export interface WindowSpec {
  window_ms: number;
  sliding: boolean;
  max: number;
}

/** Admitted (in the window starting at window_start), or refused with the window as it stood. */
export type WindowTake = { ok: true; window_start: number } | { ok: false; state: WindowState };

export type LeaseTake = { ok: true } | { ok: false; used: number };

export interface LimitCounters {
  /**
   * Counts `weight` in the window `now` falls in if windowAdmits (below) says so; otherwise
   * changes nothing.
   */
  addToWindow(key: string, now: number, spec: WindowSpec, weight: number): Promise<WindowTake>;
  /** Gives `weight` back to the window starting at `windowStart` (nothing if that window is gone). */
  subtractFromWindow(key: string, windowStart: number, spec: WindowSpec, weight: number): Promise<void>;
  /** Adds lease `lease` (expiring at `until`) if fewer than `max` live leases exist; expired ones no longer count. */
  addLease(key: string, now: number, max: number, lease: string, until: number): Promise<LeaseTake>;
  removeLease(key: string, lease: string, now: number): Promise<void>;
}

const EMPTY_WINDOW: WindowState = { window_start: 0, current: 0, previous: 0 };

export const windowStartOf = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs;

/** The state as of `now`: moved on to the window `now` falls in. */
export function rolledWindow(stored: WindowState | undefined, now: number, windowMs: number): WindowState {
  const start = windowStartOf(now, windowMs);
  const state = stored ?? EMPTY_WINDOW;
  if (state.window_start === start) return state;
  if (state.window_start === start - windowMs) return { window_start: start, current: 0, previous: state.current };
  return { window_start: start, current: 0, previous: 0 };
}

/** The previous window's share still inside the sliding window at `now`. */
export function fadingShare(state: WindowState, now: number, spec: WindowSpec): number {
  if (!spec.sliding || state.previous === 0) return 0;
  return state.previous * (1 - (now - state.window_start) / spec.window_ms);
}

/**
 * The largest current count that still admits `weight`: counts and weights are whole numbers,
 * so `current + share + weight <= max` is `current <= floor(max - weight - share)`. A store
 * that cannot compute the share itself puts this in its write condition.
 */
export function windowBound(state: WindowState, now: number, spec: WindowSpec, weight: number): number {
  return Math.floor(spec.max - weight - fadingShare(state, now, spec));
}

export function windowAdmits(state: WindowState, now: number, spec: WindowSpec, weight: number): boolean {
  return state.current <= windowBound(state, now, spec, weight);
}

/** How long a window's record is needed: a sliding window still reads it during the next one. */
export const windowLifeMs = (spec: WindowSpec): number => spec.window_ms * (spec.sliding ? 2 : 1);

