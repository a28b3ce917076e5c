import {
  headMatches,
  isLive,
  matches,
  threadKey,
  type AppendOutcome,
  type AppendRequest,
  type AuditHead,
  type AuditPage,
  type ClaimOutcome,
  type CommitOutcome,
  type CommitRequest,
  type StateRecord,
  type Store,
  type StoredEnvelope,
  type ThreadRef,
  type TransitionExpectation,
  type TransitionOutcome,
} from './store.ts';
import { checkPageLimit } from './page-limit.ts';

/** Single-process store for tests and library use. Atomic because JavaScript is single-threaded between awaits. */
export class MemoryStore implements Store {
  readonly name: string = 'memory';
  readonly #records = new Map<string, StateRecord>();
  readonly #audit = new Map<string, StoredEnvelope[]>();
  readonly #indexes = new Map<string, Map<string, number>>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    return this.#claim(key, record);
  }

  async transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    return this.#transition(key, expect, next);
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

  async readAuditHead(thread: ThreadRef): Promise<AuditHead | null> {
    return this.#head(thread);
  }

  async listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
    checkPageLimit(page.limit, 'listAudit');
    const all = this.#audit.get(threadKey(thread)) ?? [];
    const after = page.after_seq ?? 0;
    const envelopes = all.filter((e) => e.seq > after).slice(0, page.limit).map((e) => structuredClone(e));
    const last = envelopes.at(-1);
    return { envelopes, ...(last && last.seq < (all.at(-1)?.seq ?? 0) ? { next_after_seq: last.seq } : {}) };
  }

  async claimWithHead(key: string, record: StateRecord, thread: ThreadRef) {
    return { claim: this.#claim(key, record), head: this.#head(thread) };
  }

  async commit(request: CommitRequest): Promise<CommitOutcome> {
    const outcome: CommitOutcome = {};
    if (request.record) {
      const { key, expect, next } = request.record;
      if (next) outcome.record = this.#transition(key, expect, next);
      else outcome.record = matches(this.#records.get(key), expect, this.#now()) && this.#records.delete(key) ? { ok: true } : { ok: false, current: this.#live(this.#records.get(key)) };
    }
    if (request.append) outcome.append = this.#append(request.append);
    return outcome;
  }

  async addToIndex(index: string, member: string, score: number): Promise<void> {
    let entries = this.#indexes.get(index);
    if (!entries) this.#indexes.set(index, (entries = new Map()));
    entries.set(member, score);
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    this.#indexes.get(index)?.delete(member);
  }

  async listIndex(index: string, page: { after_score?: number; limit: number }) {
    checkPageLimit(page.limit, 'listIndex');
    const entries = [...(this.#indexes.get(index) ?? new Map<string, number>())].map(([member, score]) => ({ member, score }));
    return entries
      .filter((e) => page.after_score === undefined || e.score > page.after_score)
      .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
      .slice(0, page.limit);
  }

  async close(): Promise<void> {}

  #claim(key: string, record: StateRecord): ClaimOutcome {
    const existing = this.#records.get(key);
    if (existing && isLive(existing, this.#now())) return { claimed: false, existing: structuredClone(existing) };
    this.#records.set(key, structuredClone(record));
    return { claimed: true };
  }

  #transition(key: string, expect: TransitionExpectation, next: StateRecord): TransitionOutcome {
    const current = this.#records.get(key);
    if (!matches(current, expect, this.#now())) return { ok: false, current: this.#live(current) };
    this.#records.set(key, structuredClone(next));
    return { ok: true };
  }

  #head(thread: ThreadRef): AuditHead | null {
    const last = this.#audit.get(threadKey(thread))?.at(-1);
    return last ? { seq: last.seq, hash: last.hash } : null;
  }

  #append({ thread, expected, envelopes }: AppendRequest): AppendOutcome {
    const current = this.#head(thread);
    if (!headMatches(current, expected)) return { ok: false, head: current };
    const key = threadKey(thread);
    const list = this.#audit.get(key) ?? [];
    // Appended envelopes are fresh objects nobody changes afterwards; reads hand out copies.
    list.push(...envelopes);
    this.#audit.set(key, list);
    const last = list.at(-1);
    return { ok: true, head: last ? { seq: last.seq, hash: last.hash } : null } as AppendOutcome;
  }

  #live(record: StateRecord | undefined): StateRecord | undefined {
    if (!record || (record.expires_at !== 0 && record.expires_at <= this.#now())) return undefined;
    return structuredClone(record);
  }
}
