import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findApiKey } from '../../lib/governance/api-keys.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { runNode } from '../helpers/processes.ts';

const toolgate = (args: string[], env: NodeJS.ProcessEnv = {}) => runNode(['bin/toolgate.js', 'keys', ...args], { env: { TOOLGATE_URL: '', TOOLGATE_KEY: '', ...env } });

describe('toolgate keys on the store (--tenant)', () => {
  let dataDir: string;
  const env = () => ({ TOOLGATE_DATA_DIR: dataDir });
  const withStore = async <T>(work: (store: SqliteStore) => Promise<T>): Promise<T> => {
    const store = new SqliteStore(join(dataDir, 'toolgate.db'));
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  beforeAll(() => { dataDir = mkdtempSync(join(tmpdir(), 'toolgate-keys-')); });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('create prints a new key once and stores only its hash', async () => {
    const created = await toolgate(['create', '--tenant', 'demo', '--principal', 'alice', '--scopes', 'approvals:decide, audit:read'], env());
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^tg_[0-9a-f]{48}$/);
    expect(created.stderr).toMatch(/^created key key_[0-9a-f]{16} for principal "alice" of tenant "demo" with scopes \[approvals:decide, audit:read\], never expiring; it is shown only this once\n$/);
    expect(await withStore((store) => findApiKey(store, key))).toMatchObject({ tenant: 'demo', principal: 'alice', scopes: ['approvals:decide', 'audit:read'], credential: { kind: 'key' } });
    const { DatabaseSync } = await import('node:sqlite');
    const raw = new DatabaseSync(join(dataDir, 'toolgate.db'));
    expect(JSON.stringify(raw.prepare('SELECT * FROM records').all())).not.toContain(key);
    raw.close();
  });

  it('lists keys as a table (or JSON), rotates with a grace period and revokes', async () => {
    const created = await toolgate(['create', '--tenant', 'team', '--principal', 'ci-bot', '--scopes', 'audit:read', '--expires-in', '90d'], env());
    expect(created.code).toBe(0);
    const oldKey = created.stdout.trim();
    const listed = await toolgate(['list', '--tenant', 'team', '--json'], env());
    const [info] = JSON.parse(listed.stdout).keys;
    expect(info).toMatchObject({ prefix: oldKey.slice(0, 11), principal: 'ci-bot', state: 'active', created_by: expect.stringMatching(/^cli/) });
    expect(Date.parse(info.expires_at) - Date.parse(info.created_at)).toBe(90 * 86_400_000);

    const table = (await toolgate(['list', '--tenant', 'team'], env())).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+PREFIX\s+PRINCIPAL\s+STATE\s+SCOPES\s+CREATED\s+LAST USED\s+EXPIRES$/);
    expect(table[1]).toMatch(new RegExp(`^${info.id}\\s+${oldKey.slice(0, 11)}\\s+ci-bot\\s+active\\s+audit:read\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ\\s+-\\s+\\d{4}-`));

    const rotated = await toolgate(['rotate', info.id, '--tenant', 'team', '--grace', '1h'], env());
    expect(rotated.code).toBe(0);
    const newKey = rotated.stdout.trim();
    expect(newKey).toMatch(/^tg_/);
    expect(rotated.stderr).toMatch(new RegExp(`^rotated key ${info.id}: the new key key_\\w+ \\(shown only this once\\) has the same principal "ci-bot" and scopes; the old key works until `));
    expect(await withStore((store) => findApiKey(store, oldKey))).toBeDefined();
    expect(await withStore((store) => findApiKey(store, newKey))).toMatchObject({ principal: 'ci-bot', scopes: ['audit:read'] });

    const revoked = await toolgate(['revoke', info.id, '--tenant', 'team'], env());
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`revoked key ${info.id}`);
    expect(await withStore((store) => findApiKey(store, oldKey))).toBeUndefined();
    const states = JSON.parse((await toolgate(['list', '--tenant', 'team', '--json'], env())).stdout).keys.map((k: { state: string }) => k.state);
    expect(states).toEqual(['revoked', 'active']);
  });

  it('says what is wrong: an unknown key id, another tenant\'s key, a bad duration, a missing target', async () => {
    const created = await toolgate(['create', '--tenant', 'one', '--principal', 'p', '--scopes', 'none'], env());
    const id = JSON.parse((await toolgate(['list', '--tenant', 'one', '--json'], env())).stdout).keys[0].id;
    const elsewhere = await toolgate(['revoke', id, '--tenant', 'two'], env());
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toBe(`toolgate keys revoke: key "${id}" not found in tenant "two"\n`);
    expect(await withStore((store) => findApiKey(store, created.stdout.trim()))).toBeDefined();
    const badDuration = await toolgate(['create', '--tenant', 'one', '--principal', 'p', '--scopes', 'none', '--expires-in', 'soon'], env());
    expect(badDuration.code).toBe(2);
    expect(badDuration.stderr).toContain('--expires-in must be a duration like 90s, 30m, 12h or 90d (got "soon")');
    const badGrace = await toolgate(['rotate', id, '--tenant', 'one', '--grace', '8d'], env());
    expect(badGrace.code).toBe(1);
    expect(badGrace.stderr).toContain('grace_seconds must be a whole number from 0 to 604800');
    const nowhere = await toolgate(['list']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('say where: --url URL (or TOOLGATE_URL)');
    const usage = await toolgate(['create', '--principal', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('see toolgate keys create --help');
    expect((await toolgate(['rename', '--tenant', 'one'], env())).code).toBe(2);
  });
});

describe('toolgate keys through a gateway (--url, --key)', () => {
  let server: ServerType;
  let url: string;
  beforeAll(async () => {
    const gw = await testGateway([validManifest({ tenant: 'acme' })], { admin: { tenant: 'acme', principal: 'root', scopes: ['admin', 'audit:read'] }, agent: { tenant: 'acme', principal: 'agent' } });
    url = await new Promise<string>((resolve) => {
      server = serve({ fetch: gw.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`));
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('creates, lists, rotates and revokes for the admin key\'s tenant; the revoked key is refused at once', async () => {
    const env = { TOOLGATE_URL: url, TOOLGATE_KEY: 'admin' };
    const created = await toolgate(['create', '--principal', 'bot', '--scopes', 'audit:read', '--expires-in', '1d'], env);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(created.stderr).toMatch(/for principal "bot" of tenant "acme" with scopes \[audit:read\], expiring at /);
    const keys = JSON.parse((await toolgate(['list', '--json', '--limit', '200'], env)).stdout).keys as Array<{ id: string; principal: string }>;
    const id = keys.find((k) => k.principal === 'bot')!.id;
    const rotated = await toolgate(['rotate', id, '--grace', '0', '--json'], env);
    expect(rotated.code).toBe(0);
    const answer = JSON.parse(rotated.stdout);
    expect(answer).toMatchObject({ principal: 'bot', previous: { id, state: 'rotated', replaced_by: answer.id } });
    const refused = await fetch(`${url}/v1/audit?thread_id=_keys`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.message).toContain('use the new key');
    const revoked = await toolgate(['revoke', answer.id, '--url', url, '--key', 'admin'], { TOOLGATE_KEY: '' });
    expect(revoked.code).toBe(0);
    expect((await fetch(`${url}/v1/audit?thread_id=_keys`, { headers: { authorization: `Bearer ${answer.key}` } })).status).toBe(401);
  });

  it('through a gateway, a scope the admin key lacks is refused, and says so', async () => {
    const refused = await toolgate(['create', '--principal', 'approver', '--scopes', 'approvals:decide', '--url', url, '--key', 'admin'], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`toolgate keys create: ${url} answered 403: root lacks "approvals:decide": a key gets only scopes its creator holds\n`);
  });

  it('a non-admin key is refused, and says so', async () => {
    const listed = await toolgate(['list'], { TOOLGATE_URL: url, TOOLGATE_KEY: 'agent' });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe(`toolgate keys list: ${url} answered 403: this API key lacks the scope "admin"\n`);
  });
});
