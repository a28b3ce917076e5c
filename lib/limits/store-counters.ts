import type { LimitCounters } from '../stores/limit-counters.ts';
import type { Store } from '../stores/store.ts';
import { recordCounters } from './record-counters.ts';

/** The store's own limit counters (one script, one conditional update), else compare-and-set over its records. */
export function countersOf(store: Store): LimitCounters {
  return store.limitCounters?.() ?? recordCounters(store);
}
