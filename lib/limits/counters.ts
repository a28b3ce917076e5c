import type { JsonObject } from '../registry/json.ts';
import type { LimitKind } from './limit.ts';

/**
 * What a limit's record holds, and how one call changes it. Pure functions over plain data, so
 * every store applies the same rule: the store only makes the read-and-replace atomic.
 *
 * A window counter keeps the current fixed window's count and the previous one's. "fixed"
 * counts the current window only; "sliding" adds the previous window's count weighted by how
 * much of it still overlaps the last `window` milliseconds (the sliding-window-counter estimate:
 * it assumes the previous window's calls were spread evenly). A concurrency counter keeps one
 * lease per running call with the time it expires: a call that never ends (a crash) stops
 * counting when its lease expires.
 */
export interface WindowState {
  window_start: number;
  current: number;
  previous: number;
}

export interface LeaseState {
  /** Lease id → when it expires (ms since epoch). */
  leases: Record<string, number>;
}

export type TakeDecision =
  | { ok: true; data: JsonObject; expires_at: number }
  | { ok: false; retry_after_ms: number; used: number };

const EMPTY_WINDOW: WindowState = { window_start: 0, current: 0, previous: 0 };

/** The state as of `now`: moved on to the window `now` falls in. */
export function rolledWindow(stored: WindowState | undefined, now: number, windowMs: number): WindowState {
  const start = Math.floor(now / windowMs) * windowMs;
  const state = stored ?? EMPTY_WINDOW;
  if (state.window_start === start) return state;
  if (state.window_start === start - windowMs) return { window_start: start, current: 0, previous: state.current };
  return { window_start: start, current: 0, previous: 0 };
}

/** What the window has used as of `now` (sliding: with the previous window's fading share). */
export function windowUsed(state: WindowState, now: number, windowMs: number, sliding: boolean): number {
  if (!sliding || state.previous === 0) return state.current;
  const overlap = 1 - (now - state.window_start) / windowMs;
  return state.current + state.previous * overlap;
}

/** How long until `weight` more fits under `max` (never called for a weight above max: refused at publish). */
export function windowRetryAfterMs(state: WindowState, now: number, windowMs: number, sliding: boolean, max: number, weight: number): number {
  const elapsed = now - state.window_start;
  const toNextWindow = windowMs - elapsed;
  if (!sliding) return toNextWindow;
  if (state.current + weight <= max) {
    // Only the previous window's share is in the way: it fades out during this window.
    const fadedAt = windowMs * (1 - (max - weight - state.current) / state.previous);
    return Math.max(1, Math.ceil(fadedAt - elapsed));
  }
  // This window's own count is in the way: in the next window it is the fading share.
  const fadedInNext = state.current === 0 ? 0 : Math.max(0, windowMs * (1 - (max - weight) / state.current));
  return Math.ceil(toNextWindow + fadedInNext);
}

export function takeFromWindow(stored: JsonObject | undefined, now: number, kind: Extract<LimitKind, { type: 'window' }>, weight: number): TakeDecision {
  const state = rolledWindow(stored as WindowState | undefined, now, kind.window_ms);
  const used = windowUsed(state, now, kind.window_ms, kind.sliding);
  if (used + weight > kind.max) return { ok: false, retry_after_ms: windowRetryAfterMs(state, now, kind.window_ms, kind.sliding, kind.max, weight), used };
  const next: WindowState = { ...state, current: state.current + weight };
  // A sliding window still needs this window's count during the next one.
  const expires_at = state.window_start + kind.window_ms * (kind.sliding ? 2 : 1);
  return { ok: true, data: { ...next }, expires_at };
}

/** Gives a taken weight back (the call was refused by another limit), if its window is still the current one. */
export function returnToWindow(stored: JsonObject | undefined, windowStart: number, weight: number): JsonObject | undefined {
  const state = stored as WindowState | undefined;
  if (!state || state.window_start !== windowStart) return undefined;
  return { ...state, current: Math.max(0, state.current - weight) };
}

/** Leases not yet expired. */
export function liveLeases(stored: JsonObject | undefined, now: number): Record<string, number> {
  const leases = (stored as LeaseState | undefined)?.leases ?? {};
  return Object.fromEntries(Object.entries(leases).filter(([, until]) => until > now));
}

/** One more lease, if fewer than `max` are live. A refused call is told to try again in a second: a running call may end any moment. */
export function takeLease(stored: JsonObject | undefined, now: number, max: number, lease: string, until: number): TakeDecision {
  const leases = liveLeases(stored, now);
  const used = Object.keys(leases).length;
  if (used >= max) return { ok: false, retry_after_ms: 1000, used };
  leases[lease] = until;
  return { ok: true, data: { leases }, expires_at: Math.max(...Object.values(leases)) };
}

/** The leases without `lease` (undefined: it was not there, nothing to write). */
export function withoutLease(stored: JsonObject | undefined, now: number, lease: string): { data: JsonObject; expires_at: number } | undefined {
  if ((stored as LeaseState | undefined)?.leases?.[lease] === undefined) return undefined;
  const leases = liveLeases(stored, now);
  delete leases[lease];
  const times = Object.values(leases);
  return { data: { leases }, expires_at: times.length > 0 ? Math.max(...times) : now + 1 };
}
