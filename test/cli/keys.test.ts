import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findApiKey } from '../../lib/governance/api-keys.ts';
import { SqliteStore } from '../../lib/stores/sqlite.ts';
import { runNode } from '../helpers/processes.ts';

describe('toolgate keys create', () => {
  it('prints a new key once and stores only its hash', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-keys-'));
    const created = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'demo', '--principal', 'alice', '--scopes', 'approvals:decide, audit:read'], { env: { TOOLGATE_DATA_DIR: dataDir } });
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^tg_[0-9a-f]{48}$/);
    expect(created.stderr).toBe('created a key for principal "alice" of tenant "demo" with scopes [approvals:decide, audit:read]; it is shown only this once\n');
    const store = new SqliteStore(join(dataDir, 'toolgate.db'));
    expect(await findApiKey(store, key)).toMatchObject({ tenant: 'demo', principal: 'alice', scopes: ['approvals:decide', 'audit:read'], credential: { kind: 'key' } });
    const { DatabaseSync } = await import('node:sqlite');
    await store.close();
    const raw = new DatabaseSync(join(dataDir, 'toolgate.db'));
    expect(JSON.stringify(raw.prepare('SELECT * FROM records').all())).not.toContain(key);
    raw.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('explains its usage', async () => {
    const usage = await runNode(['bin/toolgate.js', 'keys', 'create', '--principal', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: toolgate keys create');
  });
});
