import type { Store } from '../stores/store.ts';
import { apiKeyIdKey, apiKeyRecordKey, keyRecord, listKey, shownPrefix, type ApiKeyRecordData } from './api-key-record.ts';

/**
 * Notes when keys are used (`last_used_at`), at most once per interval per key in this isolate,
 * never on every request: a request does not wait for the write, and a failed write is dropped
 * (the key still works; the time is written at the next interval).
 *
 * A key stored before keys had ids is given its id here, at its first use: its id record and
 * index entry are written, so it appears in `toolgate keys list` from then on.
 */
export class KeyUseRecorder {
  readonly #store: Store;
  readonly #intervalMs: number;
  readonly #now: () => number;
  /** Key hash → when its use was last written from here (ms). */
  readonly #written = new Map<string, number>();

  constructor(store: Store, options: { intervalMs: number; now: () => number }) {
    this.#store = store;
    this.#intervalMs = options.intervalMs;
    this.#now = options.now;
  }

  /** `id` is the key's id (derived from its hash when the record has none yet). */
  noteUse(hash: string, id: string, presented: string, state: string, data: ApiKeyRecordData): void {
    const now = this.#now();
    const last = this.#written.get(hash);
    if (last !== undefined && now - last < this.#intervalMs) return;
    if (this.#written.size > 10_000) this.#written.clear();
    this.#written.set(hash, now);
    const usedAt = new Date(now).toISOString();
    const write = data.id ? this.#store.put(apiKeyIdKey(data.tenant, data.id), { state: 'listed', expires_at: 0, data: { hash, last_used_at: usedAt } }) : this.#adopt(hash, id, presented, state, data, usedAt);
    void write.catch(() => {});
  }

  /** A key from before ids: listed under its derived id, then the id recorded on the key (only while it is still active). */
  async #adopt(hash: string, id: string, presented: string, state: string, data: ApiKeyRecordData, usedAt: string): Promise<void> {
    if (state !== 'active') return;
    const adopted: ApiKeyRecordData = { ...data, id, prefix: shownPrefix(presented) };
    await listKey(this.#store, hash, { ...adopted, id }, usedAt);
    await this.#store.transition(apiKeyRecordKey(hash), { state: 'active' }, keyRecord('active', adopted));
  }
}
