import type { JsonObject } from '../registry/json.ts';
import { rolledWindow, windowAdmits, windowLifeMs, type LeaseTake, type LimitCounters, type WindowState, type WindowTake } from '../stores/limit-counters.ts';
import type { RecordStore } from '../stores/store.ts';
import { liveLeases } from './counters.ts';
import { compareAndSet } from './record-cas.ts';

/**
 * Limit counters as records of the store's RecordStore half, each step one compare-and-set
 * (record-cas.ts): for the in-process stores (memory, SQLite), where a lost race costs no
 * round trip. A window's record holds its WindowState; a concurrency record its leases.
 */
export function recordCounters(store: RecordStore): LimitCounters {
  return {
    addToWindow: (key, now, spec, weight) =>
      compareAndSet<WindowTake>(store, key, (data) => {
        const state = rolledWindow(data as WindowState | undefined, now, spec.window_ms);
        if (!windowAdmits(state, now, spec, weight)) return { value: { ok: false as const, state } };
        const next: WindowState = { ...state, current: state.current + weight };
        return { write: { data: { ...next }, expires_at: state.window_start + windowLifeMs(spec) }, value: { ok: true as const, window_start: state.window_start } };
      }),
    subtractFromWindow: (key, windowStart, spec, weight) =>
      compareAndSet(store, key, (data) => {
        const state = data as WindowState | undefined;
        if (!state || state.window_start !== windowStart) return { value: undefined };
        const next: WindowState = { ...state, current: Math.max(0, state.current - weight) };
        return { write: { data: { ...next }, expires_at: windowStart + windowLifeMs(spec) }, value: undefined };
      }),
    addLease: (key, now, max, lease, until) =>
      compareAndSet<LeaseTake>(store, key, (data) => {
        const leases = liveLeases(data, now);
        const used = Object.keys(leases).length;
        if (used >= max) return { value: { ok: false as const, used } };
        leases[lease] = until;
        return { write: leaseRecord(leases, now), value: { ok: true as const } };
      }),
    removeLease: (key, lease, now) =>
      compareAndSet(store, key, (data) => {
        if ((data?.leases as JsonObject | undefined)?.[lease] === undefined) return { value: undefined };
        const leases = liveLeases(data, now);
        delete leases[lease];
        return { write: leaseRecord(leases, now), value: undefined };
      }),
  };
}

function leaseRecord(leases: Record<string, number>, now: number): { data: JsonObject; expires_at: number } {
  const times = Object.values(leases);
  return { data: { leases }, expires_at: times.length > 0 ? Math.max(...times) : now + 1 };
}
