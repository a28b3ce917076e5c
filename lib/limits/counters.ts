import type { JsonObject } from '../registry/json.ts';
import { fadingShare, type WindowSpec, type WindowState } from '../stores/limit-counters.ts';

/**
 * How a window counter and a set of leases change, as pure functions over plain data, so every
 * store applies the same rule. What a window admits is the store port's rule
 * (lib/stores/limit-counters.ts: rolledWindow, windowBound); here is what a refusal is told.
 *
 * A window counter keeps the current fixed window's count and the previous one's. "fixed"
 * counts the current window only; "sliding" adds the previous window's count weighted by how
 * much of it still overlaps the last `window` milliseconds (the sliding-window-counter estimate:
 * it assumes the previous window's calls were spread evenly). A concurrency counter keeps one
 * lease per running call with the time it expires: a call that never ends (a crash) stops
 * counting when its lease expires.
 */

export interface LeaseState {
  /** Lease id → when it expires (ms since epoch). */
  leases: Record<string, number>;
}

/** What the window has used as of `now` (sliding: with the previous window's fading share). */
export function windowUsed(state: WindowState, now: number, spec: WindowSpec): number {
  return state.current + fadingShare(state, now, spec);
}

/** How long until `weight` more fits under `max` (a weight above max never fits: refused at publish). */
export function windowRetryAfterMs(state: WindowState, now: number, spec: WindowSpec, weight: number): number {
  const { window_ms: windowMs, max } = spec;
  const elapsed = now - state.window_start;
  const toNextWindow = windowMs - elapsed;
  if (!spec.sliding) return toNextWindow;
  if (state.current + weight <= max) {
    // Only the previous window's share is in the way: it fades out during this window.
    const fadedAt = windowMs * (1 - (max - weight - state.current) / state.previous);
    return Math.max(1, Math.ceil(fadedAt - elapsed));
  }
  // This window's own count is in the way: in the next window it is the fading share.
  const fadedInNext = state.current === 0 ? 0 : Math.max(0, windowMs * (1 - (max - weight) / state.current));
  return Math.ceil(toNextWindow + fadedInNext);
}

/** Leases not yet expired. */
export function liveLeases(stored: JsonObject | undefined, now: number): Record<string, number> {
  const leases = (stored as LeaseState | undefined)?.leases ?? {};
  return Object.fromEntries(Object.entries(leases).filter(([, until]) => until > now));
}
