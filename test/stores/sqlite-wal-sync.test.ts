import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalSync } from '../../lib/stores/sqlite/wal-sync.ts';

const settled = (sync: WalSync) => new Promise<unknown>((done) => sync.afterCommit((error) => done(error ?? 'synced')));

describe('WalSync (durability of group commits)', () => {
  it('answers the writers of every commit once the WAL was synced, commits during a sync with the next one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-wal-sync-'));
    writeFileSync(join(dir, 'db.sqlite-wal'), 'frames');
    const sync = new WalSync(join(dir, 'db.sqlite'));
    try {
      const order: string[] = [];
      const first = settled(sync).then((outcome) => order.push(`first ${outcome}`));
      const second = settled(sync).then((outcome) => order.push(`second ${outcome}`));
      expect(order).toEqual([]); // nothing is answered before a sync
      await Promise.all([first, second]);
      expect(order).toEqual(['first synced', 'second synced']);
    } finally {
      await sync.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses the writers when the WAL cannot be synced: nothing is answered as durable that is not', async () => {
    const sync = new WalSync(join(tmpdir(), 'toolgate-no-such-dir', 'db.sqlite'));
    expect(String(await settled(sync))).toMatch(/ENOENT/);
    await sync.close();
  });

  it('runs what waits for it to be idle at once when no sync runs, else once the running syncs have ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-wal-sync-'));
    writeFileSync(join(dir, 'db.sqlite-wal'), 'frames');
    const sync = new WalSync(join(dir, 'db.sqlite'));
    try {
      const order: string[] = [];
      sync.whenIdle(() => order.push('idle at once'));
      expect(order).toEqual(['idle at once']);
      const first = new Promise<void>((done) => sync.afterCommit(() => (order.push('synced'), done())));
      const idle = new Promise<void>((done) => sync.whenIdle(() => (order.push('idle after the sync'), done())));
      expect(order).toEqual(['idle at once']); // the group waits while a sync runs
      await Promise.all([first, idle]);
      expect(order).toEqual(['idle at once', 'synced', 'idle after the sync']);
    } finally {
      await sync.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
