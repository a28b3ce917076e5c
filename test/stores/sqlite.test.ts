import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { storeContract } from './contract.ts';

storeContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-sqlite-'));
  const clock = { now: Date.now() };
  return { store: new SqliteStore(join(dir, 'store.db'), { now: () => clock.now }), clock, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe('sqlite file', () => {
  it('keeps records, audit and indexes across a reopen (a restart)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-sqlite-'));
    const path = join(dir, 'nested', 'toolgate.db');
    const first = new SqliteStore(path);
    await first.put('k', { state: 'completed', expires_at: 0, data: { result: 'kept' } });
    await first.commit({ append: { thread: { tenant: 't', thread_id: 'th' }, expected: null, envelopes: [{ seq: 1, prev_hash: null, hash: 'h1' }] } });
    await first.addToIndex('i', 'm', 1);
    await first.close();
    const second = new SqliteStore(path);
    expect(await second.get('k')).toEqual({ state: 'completed', expires_at: 0, data: { result: 'kept' } });
    expect(await second.readAuditHead({ tenant: 't', thread_id: 'th' })).toEqual({ seq: 1, hash: 'h1' });
    expect(await second.listIndex('i', { limit: 5 })).toEqual([{ member: 'm', score: 1 }]);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
