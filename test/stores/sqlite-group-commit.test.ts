import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditRecorder } from '../../lib/audit/recorder.ts';
import type { EnvelopeDraft } from '../../lib/audit/envelope.ts';
import { verifyChain } from '../../lib/audit/verify.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import type { StoredEnvelope, ThreadRef } from '../../lib/stores/store.ts';

let dir: string;
let path: string;
const opened: Array<{ close(): unknown }> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-group-commit-'));
  path = join(dir, 'toolgate.db');
});

afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

function openStore(options: { busyTimeoutMs?: number } = {}): SqliteStore {
  const store = new SqliteStore(path, options);
  opened.push(store);
  return store;
}

/** Another connection to the same file, as another process (the CLI) would have. */
function otherConnection(): DatabaseSync {
  const db = new DatabaseSync(path);
  opened.push(db);
  return db;
}

const record = (value: string) => ({ state: 'completed', expires_at: 0, data: { value } });
const storedKeys = (db: DatabaseSync) => (db.prepare('SELECT key FROM records ORDER BY key').all() as Array<{ key: string }>).map((row) => row.key);

describe('sqlite group commit', () => {
  it('commits the writes of one turn together, and each promise settles only once they are committed', async () => {
    const store = openStore();
    const other = otherConnection();
    const writes = [store.put('a', record('1')), store.claim('b', record('2')), store.addToIndex('i', 'm', 1)];
    // Asked for, not yet committed: another connection sees none of them.
    expect(storedKeys(other)).toEqual([]);
    const seenWhenTheFirstSettled = await writes[0].then(() => storedKeys(other));
    expect(seenWhenTheFirstSettled).toEqual(['a', 'b']);
    await Promise.all(writes);
    expect(other.prepare('SELECT member FROM indexes').all()).toEqual([{ member: 'm' }]);
  });

  it('runs the writes of a batch in the order asked, each seeing the ones before it', async () => {
    const store = openStore();
    const [first, second, moved] = await Promise.all([
      store.claim('k', record('first')),
      store.claim('k', record('second')),
      store.transition('k', { state: 'completed' }, { ...record('moved'), state: 'moved' }),
    ]);
    expect(first).toEqual({ claimed: true });
    expect(second).toEqual({ claimed: false, existing: record('first') });
    expect(moved).toEqual({ ok: true });
    expect(await store.get('k')).toEqual({ ...record('moved'), state: 'moved' });
  });

  it('rejects a write that fails alone; the rest of its batch is committed and nothing of it is', async () => {
    const store = openStore();
    const unserialisable = { state: 'completed', expires_at: 0, data: { n: 1n } as never };
    const outcomes = await Promise.allSettled([store.put('before', record('1')), store.put('bad', unserialisable), store.put('after', record('2'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(storedKeys(otherConnection())).toEqual(['after', 'before']);
  });

  it('rejects every write of a batch that cannot commit (another process holds the lock) and leaves the file as it was', async () => {
    const store = openStore({ busyTimeoutMs: 50 });
    await store.put('kept', record('0'));
    const thread: ThreadRef = { tenant: 't', thread_id: 'th' };
    const locker = otherConnection();
    locker.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([
      store.put('kept', record('overwritten')),
      store.claim('new', record('1')),
      store.commit({ append: { thread, expected: null, envelopes: [{ seq: 1, prev_hash: null, hash: 'h1' }] } }),
    ]);
    locker.exec('ROLLBACK');
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/locked|busy/i);
    expect(await store.get('kept')).toEqual(record('0'));
    expect(await store.get('new')).toBeUndefined();
    expect(await store.readAuditHead(thread)).toBeNull();
    // The store works again once the lock is gone.
    expect(await store.claim('new', record('1'))).toEqual({ claimed: true });
  });

  it('writes what was asked for before close instead of dropping it', async () => {
    const store = new SqliteStore(path);
    const write = store.put('late', record('1'));
    await store.close();
    await write;
    const reopened = openStore();
    expect(await reopened.get('late')).toEqual(record('1'));
  });

  it('keeps every thread’s hash chain valid when many calls of many threads commit in the same turns', async () => {
    const store = openStore();
    // Two recorders on one store, as two gateway processes on one file (each with its own head cache).
    const recorders = [new AuditRecorder(store), new AuditRecorder(store)];
    const threads: ThreadRef[] = Array.from({ length: 6 }, (_, i) => ({ tenant: 'acme', thread_id: `thread-${i}` }));
    const draft = (call: number): EnvelopeDraft => ({ type: 'tool.call.request', call_id: `call_${call}`, tool: 'echo', principal: 'p', args_hash: null, data: { call } });
    const calls = threads.flatMap((thread, t) => Array.from({ length: 10 }, (_, call) => recorders[(t + call) % 2].record(thread, [draft(call), { ...draft(call), type: 'tool.call.result' }])));
    await Promise.all(calls);
    for (const thread of threads) {
      const envelopes: StoredEnvelope[] = (await store.listAudit(thread, { limit: 100 })).envelopes;
      expect(await verifyChain(envelopes)).toEqual({ ok: true, count: 20, head: envelopes.at(-1)!.hash });
      // Each call's two envelopes sit next to each other, whichever recorder wrote them.
      for (let i = 0; i < envelopes.length; i += 2) expect((envelopes[i].data as { call: number }).call).toBe((envelopes[i + 1].data as { call: number }).call);
    }
  });

  it('commits the writes asked for while the WAL is being synced once that sync ends, all of them, each answered once durable', async () => {
    const store = openStore();
    const other = otherConnection();
    const writes: Array<Promise<unknown>> = [];
    const seen: string[][] = [];
    // A write per turn for 30 turns: the first commits and starts a sync; the later ones join the
    // group that commits when the sync ends (one transaction instead of one per turn).
    for (let i = 0; i < 30; i++) {
      const key = `k${String(i).padStart(2, '0')}`;
      writes.push(store.put(key, record(String(i))).then(() => seen.push(storedKeys(other))));
      await new Promise<void>((done) => setImmediate(done));
    }
    await Promise.all(writes);
    expect(storedKeys(other)).toHaveLength(30);
    // Every write was committed (visible to another process) before its promise settled.
    for (const [i, keys] of seen.entries()) expect(keys.length).toBeGreaterThanOrEqual(i + 1);
  });

  describe('audit heads read in one turn (one read transaction)', () => {
    const thread: ThreadRef = { tenant: 'acme', thread_id: 't-heads' };
    const envelope = (seq: number, prev: string | null): StoredEnvelope => ({ seq, hash: `h${seq}`, prev_hash: prev, tenant: thread.tenant, thread_id: thread.thread_id });
    const appendBy = (db: DatabaseSync, seq: number) =>
      db.prepare('INSERT INTO audit (tenant, thread_id, seq, hash, envelope) VALUES (?, ?, ?, ?, ?)').run(thread.tenant, thread.thread_id, seq, `h${seq}`, JSON.stringify(envelope(seq, seq > 1 ? `h${seq - 1}` : null)));
    const nextTurn = () => new Promise<void>((done) => setImmediate(done));

    it('see what another process appended by the next turn, and never block its writes', async () => {
      const store = openStore();
      const other = otherConnection();
      expect(await store.readAuditHead(thread)).toBeNull();
      appendBy(other, 1); // another process writes while this turn's read is open (WAL: readers never block a writer)
      await nextTurn();
      expect(await store.readAuditHead(thread)).toEqual({ seq: 1, hash: 'h1' });
    });

    it('end before the turn’s writes, which commit and chain onto the head read', async () => {
      const store = openStore();
      const head = await store.readAuditHead(thread);
      const appended = store.commit({ append: { thread, expected: head, envelopes: [envelope(1, null)] } });
      const stored = store.put('k', record('1'));
      expect(await appended).toEqual({ append: { ok: true, head: { seq: 1, hash: 'h1' } } });
      await stored;
      expect(await store.readAuditHead(thread)).toEqual({ seq: 1, hash: 'h1' });
      expect(storedKeys(otherConnection())).toEqual(['k']);
      // A head that another process moved meanwhile fails the append's compare-and-set, as before.
      const stale = await store.readAuditHead(thread);
      appendBy(otherConnection(), 2);
      await nextTurn();
      expect(await store.commit({ append: { thread, expected: stale, envelopes: [envelope(2, 'h1')] } })).toEqual({ append: { ok: false, head: { seq: 2, hash: 'h2' } } });
    });

    it('last while writes are queued, yet other reads see what is committed when they run', async () => {
      const store = openStore();
      const other = otherConnection();
      const queued = store.put('mine', record('1'));
      expect(await store.readAuditHead(thread)).toBeNull();
      other.prepare('INSERT INTO records (key, state, expires_at, data) VALUES (?, ?, ?, ?)').run('theirs', 'completed', 0, JSON.stringify({ value: '2' }));
      appendBy(other, 1);
      // A record or the audit read now is read afresh, not from the heads' snapshot.
      expect(await store.get('theirs')).toEqual(record('2'));
      expect((await store.listAudit(thread, { limit: 10 })).envelopes.map((e) => e.seq)).toEqual([1]);
      await queued;
      expect(await store.readAuditHead(thread)).toEqual({ seq: 1, hash: 'h1' });
    });

    it('end at close, leaving the file free for another writer', async () => {
      const store = openStore();
      await store.readAuditHead(thread);
      await store.close();
      const other = otherConnection();
      other.exec('PRAGMA busy_timeout = 0');
      appendBy(other, 1);
      expect(other.prepare('SELECT count(*) AS n FROM audit').get()).toEqual({ n: 1 });
    });
  });
});
