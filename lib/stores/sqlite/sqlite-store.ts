import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { setImmediate } from 'node:timers';
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
} from '../store.ts';
import { checkPageLimit } from '../page-limit.ts';
import { WalSync } from './wal-sync.ts';

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

/** A write waiting for the group commit: its work runs inside the batch's transaction. */
interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The embedded store `npm start` uses: one SQLite file (Node's built-in node:sqlite), WAL mode so
 * the CLI can read while the gateway writes.
 *
 * Group commit: every write asked for in one turn of the event loop (the calls that complete in
 * the same tick) runs, in the order asked, inside ONE transaction committed when the turn ends;
 * each caller's promise settles only after that COMMIT and the sync of the WAL after it
 * (sqlite-wal-sync.ts), so an answer is sent only once what it reports is on disk. Each write is still atomic and sees the writes queued before it (they run
 * one after another in this one thread), and BEGIN IMMEDIATE makes the batch atomic against other
 * processes (the CLI). A write that throws is dropped from its batch alone; a COMMIT that fails
 * rejects every write of the batch and leaves the file as it was.
 */
export class SqliteStore implements Store {
  readonly name = 'sqlite';
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  /** Statements compiled once: compiling one costs more than running it. */
  readonly #statements = new Map<string, StatementSync>();
  #queued: QueuedWrite[] = [];
  readonly #walSync: WalSync | undefined;
  /** A read transaction the audit heads read until the next group commit share (#beginTurnRead). */
  #turnRead = false;

  /** `busyTimeoutMs`: how long a write waits for another process's write lock (default 5 s). */
  constructor(path: string, options: { now?: () => number; busyTimeoutMs?: number } = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.#db = new DatabaseSync(path);
    // Durability: in WAL mode `synchronous = NORMAL` does not sync the WAL at COMMIT, so a committed
    // write would survive a killed process but not a power loss or kernel crash. FULL would sync at
    // every COMMIT inside this thread, stopping the event loop for the length of an fsync; instead
    // the WAL is synced on the thread pool after each group commit (WalSync) and writers are
    // answered only after that sync. A file that is not in WAL mode (':memory:') has nothing to sync.
    const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
    this.#db.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA synchronous = NORMAL;`);
    const mode = (this.#db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode;
    this.#walSync = mode === 'wal' ? new WalSync(path) : undefined;
    this.#db.exec(SCHEMA);
    this.#now = options.now ?? Date.now;
    this.#sql('DELETE FROM records WHERE expires_at != 0 AND expires_at <= ?').run(this.#now());
  }

  claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    return this.#queue(() => this.#claim(key, record));
  }

  transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    return this.#queue(() => this.#transition(key, expect, next));
  }

  async get(key: string): Promise<StateRecord | undefined> {
    this.#endTurnRead();
    return this.#live(await this.#durable(this.#read(key)));
  }

  put(key: string, record: StateRecord): Promise<void> {
    return this.#queue(() => this.#write(key, record));
  }

  remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    return this.#queue(() => this.#remove(key, expect));
  }

  async readAuditHead(thread: ThreadRef): Promise<AuditHead | null> {
    this.#beginTurnRead();
    return this.#head(thread);
  }

  async listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
    checkPageLimit(page.limit, 'listAudit');
    this.#endTurnRead();
    const rows = this
      .#sql('SELECT envelope FROM audit WHERE tenant = ? AND thread_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(thread.tenant, thread.thread_id, page.after_seq ?? 0, page.limit + 1) as Array<{ envelope: string }>;
    await this.#durable(undefined);
    const envelopes = rows.slice(0, page.limit).map((row) => JSON.parse(row.envelope) as StoredEnvelope);
    return { envelopes, ...(rows.length > page.limit ? { next_after_seq: envelopes.at(-1)!.seq } : {}) };
  }

  claimWithHead(key: string, record: StateRecord, thread: ThreadRef): Promise<{ claim: ClaimOutcome; head: AuditHead | null }> {
    return this.#queue(() => ({ claim: this.#claim(key, record), head: this.#head(thread) }));
  }

  commit(request: CommitRequest): Promise<CommitOutcome> {
    return this.#queue(() => {
      const outcome: CommitOutcome = {};
      if (request.record) {
        const { key, expect, next } = request.record;
        outcome.record = next ? this.#transition(key, expect, next) : this.#remove(key, expect) ? { ok: true } : { ok: false, current: this.#live(this.#read(key)) };
      }
      if (request.append) outcome.append = this.#append(request.append);
      return outcome;
    });
  }

  addToIndex(index: string, member: string, score: number): Promise<void> {
    return this.#queue(() => {
      this.#sql('INSERT INTO indexes (name, member, score) VALUES (?, ?, ?) ON CONFLICT (name, member) DO UPDATE SET score = excluded.score').run(index, member, score);
    });
  }

  removeFromIndex(index: string, member: string): Promise<void> {
    return this.#queue(() => {
      this.#sql('DELETE FROM indexes WHERE name = ? AND member = ?').run(index, member);
    });
  }

  async listIndex(index: string, page: { after_score?: number; limit: number }) {
    checkPageLimit(page.limit, 'listIndex');
    this.#endTurnRead();
    return this.#durable(this
      .#sql('SELECT member, score FROM indexes WHERE name = ? AND score > ? ORDER BY score, member LIMIT ?')
      .all(index, page.after_score ?? Number.NEGATIVE_INFINITY, page.limit) as Array<{ member: string; score: number }>);
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#endTurnRead();
    this.#commitQueued(); // what was asked for before close is written, not dropped
    await this.#walSync?.close();
    if (!this.#db.isOpen) return; // closed by a concurrent close()
    this.#statements.clear();
    this.#db.close();
  }

  /**
   * Queues `work` for the next group commit; the first write queued schedules it, at the end of
   * this turn or, while the WAL is being synced, once that sync ends (the writes of the turns
   * meanwhile go in that one transaction: each would wait for the next sync anyway).
   */
  #queue<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queued.length === 0) setImmediate(() => (this.#walSync ? this.#walSync.whenIdle(() => this.#commitQueued()) : this.#commitQueued()));
      this.#queued.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #commitQueued(): void {
    const batch = this.#queued;
    this.#queued = [];
    if (batch.length > 0) this.#commitBatch(batch);
  }

  /**
   * Runs the batch's writes in one transaction. A write that throws is rejected alone: the
   * transaction is rolled back (its earlier writes with it) and the others run again in a new one.
   */
  #commitBatch(batch: QueuedWrite[]): void {
    if (!this.#db.isOpen) return batch.forEach((write) => write.reject(new Error('the SQLite store is closed')));
    this.#endTurnRead();
    try {
      this.#db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      return batch.forEach((write) => write.reject(error)); // busy beyond busy_timeout: nothing was written
    }
    const results: unknown[] = [];
    for (const write of batch) {
      try {
        results.push(write.work());
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        write.reject(error);
        return this.#commitBatch(batch.filter((other) => other !== write));
      }
    }
    try {
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      return batch.forEach((write) => write.reject(error));
    }
    const settle = (error?: unknown) => batch.forEach((write, index) => (error ? write.reject(error) : write.resolve(results[index])));
    if (this.#walSync) this.#walSync.afterCommit(settle);
    else settle();
  }

  /**
   * `value`, read now, once it is durable: a read sees transactions committed but whose WAL sync
   * is still running (their writers not answered yet), and must not report them before they are
   * on disk either. The audit head is not wrapped: it only feeds a compare-and-set, which is queued.
   */
  #durable<T>(value: T): Promise<T> {
    const walSync = this.#walSync;
    if (!walSync) return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => walSync.afterRead((error) => (error ? reject(error) : resolve(value))));
  }

  /**
   * The audit heads read until the next group commit share one read transaction: it ends when the
   * commit begins (its writes must see and be seen), or at the end of a turn with no write queued.
   * A statement outside any transaction opens and closes its own, which in WAL mode means taking
   * and dropping the file's locks (system calls) each time: for a call on a thread not cached, a
   * share of its cost that the heads read meanwhile can pay once. A head only feeds the
   * compare-and-set of an append (queued, so run after the read transaction ends): one that
   * another process moved since is found there. Other reads end it first: they see what is
   * committed when they run, as before.
   */
  #beginTurnRead(): void {
    if (this.#turnRead || this.#db.isTransaction) return;
    this.#db.exec('BEGIN');
    this.#turnRead = true;
    setImmediate(() => {
      if (this.#queued.length === 0) this.#endTurnRead(); // else the queued writes' commit ends it
    });
  }

  #endTurnRead(): void {
    if (!this.#turnRead) return;
    this.#turnRead = false;
    if (this.#db.isOpen && this.#db.isTransaction) this.#db.exec('COMMIT');
  }

  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) this.#statements.set(text, (statement = this.#db.prepare(text)));
    return statement;
  }

  #read(key: string): StateRecord | undefined {
    const row = this.#sql('SELECT state, owner, claimable_after, expires_at, data FROM records WHERE key = ?').get(key) as RecordRow | undefined;
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
    this.#sql('INSERT OR REPLACE INTO records (key, state, owner, claimable_after, expires_at, data) VALUES (?, ?, ?, ?, ?, ?)').run(...values);
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
    this.#sql('DELETE FROM records WHERE key = ?').run(key);
    return true;
  }

  #head(thread: ThreadRef): AuditHead | null {
    const row = this.#sql('SELECT seq, hash FROM audit WHERE tenant = ? AND thread_id = ? ORDER BY seq DESC LIMIT 1').get(thread.tenant, thread.thread_id) as AuditHead | undefined;
    return row ? { seq: Number(row.seq), hash: row.hash } : null;
  }

  #append({ thread, expected, envelopes }: AppendRequest) {
    const current = this.#head(thread);
    if (!headMatches(current, expected)) return { ok: false as const, head: current };
    const insert = this.#sql('INSERT INTO audit (tenant, thread_id, seq, hash, envelope) VALUES (?, ?, ?, ?, ?)');
    for (const envelope of envelopes) insert.run(thread.tenant, thread.thread_id, envelope.seq, envelope.hash, JSON.stringify(envelope));
    const last = envelopes.at(-1);
    return { ok: true as const, head: last ? { seq: last.seq, hash: last.hash } : this.#head(thread)! };
  }

  #live(record: StateRecord | undefined): StateRecord | undefined {
    if (!record || (record.expires_at !== 0 && record.expires_at <= this.#now())) return undefined;
    return record;
  }
}
