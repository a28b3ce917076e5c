import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import {
  headMatches,
  isLive,
  matches,
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

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY, state TEXT NOT NULL, owner TEXT, claimable_after INTEGER,
    expires_at INTEGER NOT NULL, data TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS audit (
    tenant TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL,
    envelope TEXT NOT NULL, PRIMARY KEY (tenant, thread_id, seq));
  CREATE TABLE IF NOT EXISTS indexes (
    name TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (name, member));
  CREATE INDEX IF NOT EXISTS indexes_by_score ON indexes (name, score);
`;

interface RecordRow {
  state: string;
  owner: string | null;
  claimable_after: number | null;
  expires_at: number;
  data: string;
}

/**
 * The embedded store `npm start` uses: one SQLite file (Node's built-in node:sqlite), WAL mode so
 * the CLI can read while the gateway writes. Every operation is one synchronous transaction, so it
 * is atomic in this process, and BEGIN IMMEDIATE makes it atomic against other processes too.
 */
export class SqliteStore implements Store {
  readonly name = 'sqlite';
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #now: () => number;

  constructor(path: string, options: { now?: () => number } = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
    this.#db.exec(SCHEMA);
    this.#now = options.now ?? Date.now;
    this.#db.prepare('DELETE FROM records WHERE expires_at != 0 AND expires_at <= ?').run(this.#now());
  }

  async claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    return this.#transaction(() => this.#claim(key, record));
  }

  async transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    return this.#transaction(() => this.#transition(key, expect, next));
  }

  async get(key: string): Promise<StateRecord | undefined> {
    return this.#live(this.#read(key));
  }

  async put(key: string, record: StateRecord): Promise<void> {
    this.#write(key, record);
  }

  async remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    return this.#transaction(() => this.#remove(key, expect));
  }

  async readAuditHead(thread: ThreadRef): Promise<AuditHead | null> {
    return this.#head(thread);
  }

  async listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
    checkPageLimit(page.limit, 'listAudit');
    const rows = this.#db
      .prepare('SELECT envelope FROM audit WHERE tenant = ? AND thread_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(thread.tenant, thread.thread_id, page.after_seq ?? 0, page.limit + 1) as Array<{ envelope: string }>;
    const envelopes = rows.slice(0, page.limit).map((row) => JSON.parse(row.envelope) as StoredEnvelope);
    return { envelopes, ...(rows.length > page.limit ? { next_after_seq: envelopes.at(-1)!.seq } : {}) };
  }

  async claimWithHead(key: string, record: StateRecord, thread: ThreadRef) {
    return this.#transaction(() => ({ claim: this.#claim(key, record), head: this.#head(thread) }));
  }

  async commit(request: CommitRequest): Promise<CommitOutcome> {
    return this.#transaction(() => {
      const outcome: CommitOutcome = {};
      if (request.record) {
        const { key, expect, next } = request.record;
        outcome.record = next ? this.#transition(key, expect, next) : this.#remove(key, expect) ? { ok: true } : { ok: false, current: this.#live(this.#read(key)) };
      }
      if (request.append) outcome.append = this.#append(request.append);
      return outcome;
    });
  }

  async addToIndex(index: string, member: string, score: number): Promise<void> {
    this.#db.prepare('INSERT INTO indexes (name, member, score) VALUES (?, ?, ?) ON CONFLICT (name, member) DO UPDATE SET score = excluded.score').run(index, member, score);
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    this.#db.prepare('DELETE FROM indexes WHERE name = ? AND member = ?').run(index, member);
  }

  async listIndex(index: string, page: { after_score?: number; limit: number }) {
    checkPageLimit(page.limit, 'listIndex');
    return this.#db
      .prepare('SELECT member, score FROM indexes WHERE name = ? AND score > ? ORDER BY score, member LIMIT ?')
      .all(index, page.after_score ?? Number.NEGATIVE_INFINITY, page.limit) as Array<{ member: string; score: number }>;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  #read(key: string): StateRecord | undefined {
    const row = this.#db.prepare('SELECT state, owner, claimable_after, expires_at, data FROM records WHERE key = ?').get(key) as RecordRow | undefined;
    if (!row) return undefined;
    return {
      state: row.state,
      ...(row.owner !== null ? { owner: row.owner } : {}),
      ...(row.claimable_after !== null ? { claimable_after: row.claimable_after } : {}),
      expires_at: row.expires_at,
      data: JSON.parse(row.data),
    };
  }

  #write(key: string, record: StateRecord): void {
    const values: SQLInputValue[] = [key, record.state, record.owner ?? null, record.claimable_after ?? null, record.expires_at, JSON.stringify(record.data)];
    this.#db.prepare('INSERT OR REPLACE INTO records (key, state, owner, claimable_after, expires_at, data) VALUES (?, ?, ?, ?, ?, ?)').run(...values);
  }

  #claim(key: string, record: StateRecord): ClaimOutcome {
    const existing = this.#read(key);
    if (existing && isLive(existing, this.#now())) return { claimed: false, existing };
    this.#write(key, record);
    return { claimed: true };
  }

  #transition(key: string, expect: TransitionExpectation, next: StateRecord): TransitionOutcome {
    const current = this.#read(key);
    if (!matches(current, expect, this.#now())) return { ok: false, current: this.#live(current) };
    this.#write(key, next);
    return { ok: true };
  }

  #remove(key: string, expect: TransitionExpectation): boolean {
    if (!matches(this.#read(key), expect, this.#now())) return false;
    this.#db.prepare('DELETE FROM records WHERE key = ?').run(key);
    return true;
  }

  #head(thread: ThreadRef): AuditHead | null {
    const row = this.#db.prepare('SELECT seq, hash FROM audit WHERE tenant = ? AND thread_id = ? ORDER BY seq DESC LIMIT 1').get(thread.tenant, thread.thread_id) as AuditHead | undefined;
    return row ? { seq: Number(row.seq), hash: row.hash } : null;
  }

  #append({ thread, expected, envelopes }: AppendRequest) {
    const current = this.#head(thread);
    if (!headMatches(current, expected)) return { ok: false as const, head: current };
    const insert = this.#db.prepare('INSERT INTO audit (tenant, thread_id, seq, hash, envelope) VALUES (?, ?, ?, ?, ?)');
    for (const envelope of envelopes) insert.run(thread.tenant, thread.thread_id, envelope.seq, envelope.hash, JSON.stringify(envelope));
    return { ok: true as const, head: this.#head(thread)! };
  }

  #live(record: StateRecord | undefined): StateRecord | undefined {
    if (!record || (record.expires_at !== 0 && record.expires_at <= this.#now())) return undefined;
    return record;
  }
}
