import type { JsonObject } from '../registry/json.ts';
import type { RecordStore } from '../stores/store.ts';

/** How often a contended record is read again before the call gives up (each attempt is one get and one conditional write). */
export const MAX_ATTEMPTS = 64;

export type CasChange<T> = { write: { data: JsonObject; expires_at: number }; value: T } | { write?: undefined; value: T };

/** Thrown when a record stayed contended for MAX_ATTEMPTS attempts: the caller fails closed. */
export class LimitContendedError extends Error {
  constructor(key: string) {
    super(`the limit record ${key} stayed contended for ${MAX_ATTEMPTS} attempts`);
    this.name = 'LimitContendedError';
  }
}

/**
 * Reads a record, computes its next data, and replaces it only if nobody replaced it in between:
 * the store's own atomic compare-and-set (claim when absent, transition on the state otherwise;
 * every write gets a fresh state, so a match means "unchanged since read"). Memory checks it in
 * one turn of the event loop, SQLite in a transaction, Upstash in a Lua script, DynamoDB in a
 * conditional write. A lost race reads again, after a short random pause so racers spread out.
 */
export async function compareAndSet<T>(store: RecordStore, key: string, change: (data: JsonObject | undefined) => CasChange<T>): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await store.get(key);
    const decided = change(current?.data);
    if (!decided.write) return decided.value;
    const next = { state: `v-${crypto.randomUUID()}`, expires_at: decided.write.expires_at, data: decided.write.data };
    const written = current ? (await store.transition(key, { state: current.state }, next)).ok : (await store.claim(key, next)).claimed;
    if (written) return decided.value;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, 1 + attempt * 2)));
  }
  throw new LimitContendedError(key);
}
