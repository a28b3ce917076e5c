import { isLive, matches, type ClaimOutcome, type RecordStore, type StateRecord, type TransitionExpectation, type TransitionOutcome } from './store.ts';

/** Single-process store for tests and library use. Atomic because JavaScript is single-threaded. */
export class MemoryStore implements RecordStore {
  readonly name = 'memory';
  readonly #records = new Map<string, StateRecord>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    const existing = this.#records.get(key);
    if (existing && isLive(existing, this.#now())) return { claimed: false, existing: structuredClone(existing) };
    this.#records.set(key, structuredClone(record));
    return { claimed: true };
  }

  async transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    const current = this.#records.get(key);
    if (!matches(current, expect, this.#now())) return { ok: false, current: this.#live(current) };
    this.#records.set(key, structuredClone(next));
    return { ok: true };
  }

  async get(key: string): Promise<StateRecord | undefined> {
    return this.#live(this.#records.get(key));
  }

  async put(key: string, record: StateRecord): Promise<void> {
    this.#records.set(key, structuredClone(record));
  }

  async remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    if (!matches(this.#records.get(key), expect, this.#now())) return false;
    return this.#records.delete(key);
  }

  #live(record: StateRecord | undefined): StateRecord | undefined {
    if (!record || (record.expires_at !== 0 && record.expires_at <= this.#now())) return undefined;
    return structuredClone(record);
  }
}
