import fs from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';

/**
 * Group commit answers a write only after COMMIT and the WAL's fsync (lib/stores/sqlite/wal-sync.ts). Attack:
 * read the record between the two. The COMMIT made it visible to reads on the same connection, so
 * `get` (GET /v1/calls/ID, an approval's status, a key check) reported a result its own writer had
 * not been answered for, and a power loss could still undo. Here the WAL's fsync is held back.
 */
describe('attack: a read reports a write whose WAL sync has not finished', () => {
  const realFsync = fs.fsync;
  let held: Array<() => void> = [];
  let holding = false;
  const dir = fs.mkdtempSync(join(tmpdir(), 'toolgate-read-durable-'));
  beforeAll(() => {
    (fs as { fsync: unknown }).fsync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
      if (holding) held.push(() => realFsync(fd, done));
      else realFsync(fd, done);
    };
    module.syncBuiltinESMExports();
  });
  afterAll(() => {
    fs.fsync = realFsync;
    module.syncBuiltinESMExports();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const release = () => { const now = held; held = []; now.forEach((run) => run()); };
  const settled = async <T>(promise: Promise<T>) => {
    let done = false;
    void promise.then(() => { done = true; }, () => { done = true; });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    return done;
  };

  it('get, listAudit and listIndex wait for the sync of what they read', async () => {
    const store = new SqliteStore(join(dir, 'store.db'));
    await store.put('warm', { state: 'x', expires_at: 0, data: {} });
    holding = true;
    const write = store.put('call', { state: 'completed', expires_at: 0, data: { result: 'done' } });
    const indexed = store.addToIndex('approvals', 'a-1', 1);
    const thread = { tenant: 'acme', thread_id: 't' };
    const appended = store.commit({ append: { thread, expected: null, envelopes: [{ seq: 1, hash: 'h1' } as never] } });
    expect(await settled(write)).toBe(false); // committed, its sync held: not answered

    const read = store.get('call');
    const listed = store.listIndex('approvals', { limit: 10 });
    const audit = store.listAudit(thread, { limit: 10 });
    expect(await settled(read)).toBe(false);
    expect(await settled(listed)).toBe(false);
    expect(await settled(audit)).toBe(false);

    holding = false;
    release();
    await Promise.all([write, indexed, appended]);
    expect(await read).toMatchObject({ state: 'completed', data: { result: 'done' } });
    expect(await listed).toEqual([{ member: 'a-1', score: 1 }]);
    expect((await audit).envelopes).toHaveLength(1);
    // Nothing waiting for a sync: a read answers at once.
    expect(await settled(store.get('call'))).toBe(true);
    await store.close();
  });
});
