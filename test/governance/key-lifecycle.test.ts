/**
 * The API key lifecycle on real stores (memory, a SQLite file, Upstash over redis, DynamoDB on dynalite): create with expiry, list in
 * pages, revoke, rotate with a grace period, and what the resolver answers for each state, also
 * while the store is unreachable.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyRecordKey, hashApiKey } from '../../lib/governance/api-key-record.ts';
import { ApiKeyResolver, createApiKey } from '../../lib/governance/api-keys.ts';
import { ApiKeyLifecycle, KeyLifecycleError, KEYS_THREAD } from '../../lib/governance/key-lifecycle.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { StoreUnavailableError, type Store } from '../../lib/stores/store.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore } from '../support/store-fixtures.ts';

const HOUR = 3600_000;

/** The store as one gateway process sees it: it can be cut off (every call fails) and counts its `put`s. */
function reachableStore(store: Store) {
  const state = { down: false, puts: 0, failPuts: false, pending: [] as Promise<unknown>[] };
  const view = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'put') state.puts++;
        if (state.down || (property === 'put' && state.failPuts)) return Promise.reject(new StoreUnavailableError(target.name, 'unreachable'));
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) state.pending.push(result.catch(() => {}));
        return result;
      };
    },
  });
  /** Waits for every call started so far, and for those they start in turn (a key's use is written after the request). */
  const settled = async () => {
    let seen = -1;
    while (seen !== state.pending.length) {
      seen = state.pending.length;
      await Promise.all(state.pending);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  return { store: view, state, settled };
}

const backends: Array<[string, () => Promise<{ store: Store; stop(): Promise<void> }>]> = [
  ['memory', async () => ({ store: new MemoryStore(), stop: async () => {} })],
  ['sqlite', openSqliteStore],
  // The lifecycle uses only the Store port, so the remote adapters keep it too (real redis behind the Upstash bridge, dynalite).
  ['upstash', openUpstashStore],
  ['dynamodb', () => openDynamoDbStore()],
];

describe.each(backends)('API key lifecycle on the %s store', (_name, open) => {
  let backing: { store: Store; stop(): Promise<void> };
  let clock: number;
  const now = () => clock;
  let view: ReturnType<typeof reachableStore>;
  let resolver: ApiKeyResolver;
  let keys: ApiKeyLifecycle;

  beforeEach(async () => {
    backing = await open();
    clock = Date.parse('2030-01-01T00:00:00Z');
    view = reachableStore(backing.store);
    resolver = new ApiKeyResolver(view.store, { now });
    keys = new ApiKeyLifecycle(view.store, { resolver, now });
  });
  afterEach(async () => {
    await view.settled();
    await backing.stop();
  });

  const refusal = async (key: string, by = resolver) => {
    const checked = await by.check(key);
    return checked.ok ? 'accepted' : checked.message;
  };

  it('creates a key with an id and a prefix, stores only its hash, and audits the creation without key material', async () => {
    const { key, info } = await keys.create('acme', { principal: 'bob', scopes: ['audit:read'] }, { operator: 'root' });
    expect(info).toEqual({ id: expect.stringMatching(/^key_[0-9a-f]{16}$/), prefix: key.slice(0, 11), tenant: 'acme', principal: 'bob', scopes: ['audit:read'], created_at: '2030-01-01T00:00:00.000Z', created_by: 'root', expires_at: null, last_used_at: null, state: 'active' });
    expect(await resolver.check(key)).toEqual({ ok: true, principal: { tenant: 'acme', principal: 'bob', scopes: ['audit:read'], credential: { kind: 'key', key_id: info.id } } });
    const stored = JSON.stringify(await backing.store.get(apiKeyRecordKey(await hashApiKey(key))));
    expect(stored).toContain(info.id);
    expect(stored).not.toContain(key);
    const audit = await backing.store.listAudit({ tenant: 'acme', thread_id: KEYS_THREAD }, { limit: 10 });
    expect(audit.envelopes.map((e) => [e.type, e.principal, e.data])).toEqual([['key.created', 'root', { id: info.id, prefix: info.prefix, principal: 'bob', scopes: ['audit:read'], expires_at: null, lineage: [], created_by: 'root' }]]);
    expect(JSON.stringify(audit)).not.toContain(key);
    expect(JSON.stringify(audit)).not.toContain(await hashApiKey(key));
  });

  it('lists a tenant\'s keys in creation order, in bounded pages, and no other tenant\'s', async () => {
    const created = [];
    for (let i = 0; i < 5; i++) {
      clock += 1000;
      created.push((await keys.create('acme', { principal: `p${i}`, scopes: [] }, { operator: 'root' })).info.id);
    }
    await keys.create('other', { principal: 'eve', scopes: [] }, { operator: 'eve' });
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await keys.list('acme', { after, limit: 2 });
      seen.push(...page.keys.map((k) => k.id));
      after = page.next;
      pages++;
    } while (after !== undefined);
    expect(seen).toEqual(created);
    expect(pages).toBe(3);
    expect((await keys.list('nobody', { limit: 10 })).keys).toEqual([]);
    for (const bad of [{ limit: 0 }, { limit: 201 }, { limit: 1.5 }, { limit: 10, after: '-1' }, { limit: 10, after: 'abc' }, { limit: 10, after: '1e9' }]) {
      await expect(keys.list('acme', bad)).rejects.toMatchObject({ code: 'invalid_request' });
    }
  });

  it('refuses a revoked key at once in the isolate that revoked it, elsewhere within the cache lifetime', async () => {
    const { key, info } = await keys.create('acme', { principal: 'bob', scopes: [] }, { operator: 'root' });
    const elsewhere = new ApiKeyResolver(view.store, { now });
    expect(await refusal(key)).toBe('accepted');
    expect(await refusal(key, elsewhere)).toBe('accepted');
    const revoked = await keys.revoke('acme', info.id, 'root');
    expect(revoked).toMatchObject({ id: info.id, state: 'revoked', revoked_by: 'root', revoked_at: '2030-01-01T00:00:00.000Z' });
    expect(await refusal(key)).toBe('this API key was revoked at 2030-01-01T00:00:00.000Z; ask an admin of your tenant for another key');
    // Another process cached the key as usable: it holds that view until its cache entry is a minute old.
    expect(await refusal(key, elsewhere)).toBe('accepted');
    clock += 60_000;
    expect(await refusal(key, elsewhere)).toMatch(/^this API key was revoked/);
    // Revoking again changes nothing and records nothing more.
    expect(await keys.revoke('acme', info.id, 'someone-else')).toEqual(revoked);
    const audit = await backing.store.listAudit({ tenant: 'acme', thread_id: KEYS_THREAD }, { limit: 10 });
    expect(audit.envelopes.map((e) => e.type)).toEqual(['key.created', 'key.revoked']);
  });

  it('another tenant\'s key id, and an id of another shape, are not found', async () => {
    const { key, info } = await keys.create('acme', { principal: 'bob', scopes: [] }, { operator: 'root' });
    for (const attempt of [() => keys.revoke('other', info.id, 'eve'), () => keys.rotate('other', info.id, { operator: 'eve' }, { grace_seconds: 0 }), () => keys.get('other', info.id), () => keys.revoke('acme', 'key_0000000000000000', 'root'), () => keys.revoke('acme', '../apikey', 'root')]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(await refusal(key)).toBe('accepted');
  });

  it('an expired key is refused with when it expired, even from the cache and while the store is down', async () => {
    await expect(keys.create('acme', { principal: 'bob', scopes: [], expires_at: '2029-12-31T00:00:00Z' }, { operator: 'root' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(keys.create('acme', { principal: 'bob', scopes: [], expires_at: 'tomorrow' }, { operator: 'root' })).rejects.toBeInstanceOf(KeyLifecycleError);
    await expect(keys.create('acme', { principal: 'bob', scopes: [], expires_at: '2045-01-01T00:00:00Z' }, { operator: 'root' })).rejects.toMatchObject({ code: 'invalid_request' });
    const { key, info } = await keys.create('acme', { principal: 'bob', scopes: [], expires_at: '2030-01-01T02:00:00+01:00' }, { operator: 'root' });
    expect(info.expires_at).toBe('2030-01-01T01:00:00.000Z');
    expect(await refusal(key)).toBe('accepted');
    clock += HOUR;
    view.state.down = true;
    expect(await refusal(key)).toBe('this API key expired at 2030-01-01T01:00:00.000Z; ask an admin of your tenant for a new key (toolgate keys create)');
    view.state.down = false;
    expect((await keys.get('acme', info.id)).state).toBe('expired');
    await expect(keys.rotate('acme', info.id, { operator: 'root' }, { grace_seconds: 60 })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('expired') });
  });

  it('rotation: the new key has the same principal, scopes and lifetime; the old one works through its grace period only', async () => {
    const old = await keys.create('acme', { principal: 'ci', scopes: ['audit:read', 'admin'], expires_at: '2030-01-31T00:00:00Z' }, { operator: 'root' });
    clock += 24 * HOUR;
    const rotated = await keys.rotate('acme', old.info.id, { operator: 'ops' }, { grace_seconds: 3600 });
    expect(rotated.info).toMatchObject({ principal: 'ci', scopes: ['audit:read', 'admin'], created_by: 'ops', state: 'active', expires_at: '2030-02-01T00:00:00.000Z' });
    expect(rotated.previous).toMatchObject({ id: old.info.id, state: 'rotated', grace_until: '2030-01-02T01:00:00.000Z', replaced_by: rotated.info.id });
    expect(await refusal(rotated.key)).toBe('accepted');
    expect(await refusal(old.key)).toBe('accepted');
    clock += HOUR - 1;
    expect(await refusal(old.key)).toBe('accepted');
    clock += 1;
    expect(await refusal(old.key)).toBe(`this API key was rotated at 2030-01-02T00:00:00.000Z and its grace period ended at 2030-01-02T01:00:00.000Z; use the new key (${rotated.info.id})`);
    await expect(keys.rotate('acme', old.info.id, { operator: 'ops' }, { grace_seconds: 0 })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(rotated.info.id) });
    for (const grace of [-1, 7 * 24 * 3600 + 1, 0.5]) await expect(keys.rotate('acme', rotated.info.id, { operator: 'ops' }, { grace_seconds: grace })).rejects.toMatchObject({ code: 'invalid_request' });
    const audit = await backing.store.listAudit({ tenant: 'acme', thread_id: KEYS_THREAD }, { limit: 10 });
    expect(audit.envelopes.at(-1)).toMatchObject({ type: 'key.rotated', principal: 'ops', data: { id: old.info.id, replaced_by: rotated.info.id, new_prefix: rotated.info.prefix, grace_until: '2030-01-02T01:00:00.000Z' } });
    expect(JSON.stringify(audit)).not.toContain(rotated.key);
  });

  it('a grace period never outlives the old key\'s expiry; a key rotated in its grace period can still be revoked', async () => {
    const old = await keys.create('acme', { principal: 'ci', scopes: [], expires_at: '2030-01-01T00:10:00Z' }, { operator: 'root' });
    const rotated = await keys.rotate('acme', old.info.id, { operator: 'root' }, { grace_seconds: 7 * 24 * 3600 });
    expect(rotated.previous.grace_until).toBe('2030-01-01T00:10:00.000Z');
    expect(await refusal(old.key)).toBe('accepted');
    await keys.revoke('acme', old.info.id, 'root');
    expect(await refusal(old.key)).toMatch(/^this API key was revoked/);
    expect(await refusal(rotated.key)).toBe('accepted');
  });

  it('two rotations of one key at once give one new key; the other is a conflict', async () => {
    const old = await keys.create('acme', { principal: 'ci', scopes: [] }, { operator: 'root' });
    clock += 1000;
    const other = new ApiKeyLifecycle(view.store, { now });
    const outcomes = await Promise.allSettled([keys, other, keys, other].map((lifecycle) => lifecycle.rotate('acme', old.info.id, { operator: 'root' }, { grace_seconds: 60 })));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(['conflict', 'conflict', 'conflict']);
    const listed = (await keys.list('acme', { limit: 10 })).keys;
    expect(listed.map((k) => k.state)).toEqual(['rotated', 'active']);
    expect(listed[0].replaced_by).toBe(listed[1].id);
  });

  it('while the store is unreachable a key last seen usable keeps working, a key known revoked stays refused, and an unknown one cannot be checked', async () => {
    const kept = await keys.create('acme', { principal: 'bob', scopes: [] }, { operator: 'root' });
    const gone = await keys.create('acme', { principal: 'eve', scopes: [] }, { operator: 'root' });
    const fresh = await keys.create('acme', { principal: 'new', scopes: [] }, { operator: 'root' });
    expect(await refusal(kept.key)).toBe('accepted');
    expect(await refusal(gone.key)).toBe('accepted');
    await keys.revoke('acme', gone.info.id, 'root');
    expect(await refusal(gone.key)).toMatch(/revoked/);
    clock += 5 * 60_000;
    view.state.down = true;
    expect(await refusal(kept.key)).toBe('accepted');
    expect(await refusal(gone.key)).toMatch(/revoked/);
    await expect(resolver.check(fresh.key)).rejects.toBeInstanceOf(StoreUnavailableError);
    // Forgotten (revoked here) while the store is down: refused as unavailable, never let through.
    resolver.forget(await hashApiKey(kept.key));
    await expect(resolver.check(kept.key)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('notes a key\'s last use at most once a minute, and a failed write fails no request', async () => {
    const { key, info } = await keys.create('acme', { principal: 'bob', scopes: [] }, { operator: 'root' });
    const before = view.state.puts;
    for (let i = 0; i < 20; i++) expect(await refusal(key)).toBe('accepted');
    await view.settled();
    expect(view.state.puts - before).toBe(1);
    expect((await keys.get('acme', info.id)).last_used_at).toBe('2030-01-01T00:00:00.000Z');
    clock += 30_000;
    expect(await refusal(key)).toBe('accepted');
    expect(view.state.puts - before).toBe(1);
    clock += 30_000;
    view.state.failPuts = true;
    expect(await refusal(key)).toBe('accepted');
    expect(view.state.puts - before).toBe(2);
    view.state.failPuts = false;
    clock += 60_000;
    expect(await refusal(key)).toBe('accepted');
    await view.settled();
    expect((await keys.get('acme', info.id)).last_used_at).toBe('2030-01-01T00:02:00.000Z');
  });

  it('a key stored before keys had ids keeps working, and is listed (and can be revoked) after its first use', async () => {
    const legacy = 'tg_0123456789abcdef0123456789abcdef0123456789abcdef';
    await backing.store.put(apiKeyRecordKey(await hashApiKey(legacy)), { state: 'active', expires_at: 0, data: { tenant: 'acme', principal: 'old-bot', scopes: ['audit:read'], created_at: '2029-06-01T00:00:00.000Z' } });
    expect((await keys.list('acme', { limit: 10 })).keys).toEqual([]);
    expect(await refusal(legacy)).toBe('accepted');
    await view.settled();
    const [listed] = (await keys.list('acme', { limit: 10 })).keys;
    expect(listed).toEqual({ id: expect.stringMatching(/^key_/), prefix: 'tg_01234567', tenant: 'acme', principal: 'old-bot', scopes: ['audit:read'], created_at: '2029-06-01T00:00:00.000Z', expires_at: null, last_used_at: '2030-01-01T00:00:00.000Z', state: 'active' });
    expect((await resolver.check(legacy)).ok && (await resolver.check(legacy) as { principal: { credential: unknown } }).principal.credential).toEqual({ kind: 'key', key_id: listed.id });
    await keys.revoke('acme', listed.id, 'root');
    expect(await refusal(legacy)).toMatch(/revoked/);
  });

  it('registering a known key (the demo key at each start) refreshes it while active and never revives it once revoked', async () => {
    const demo = 'demo-key-for-tests';
    const { id } = await createApiKey(view.store, { tenant: 'acme', principal: 'demo-user', scopes: ['admin'] }, demo);
    await createApiKey(view.store, { tenant: 'acme', principal: 'demo-user', scopes: ['admin', 'audit:read'] }, demo);
    expect(await resolver.check(demo)).toMatchObject({ ok: true, principal: { scopes: ['admin', 'audit:read'], credential: { key_id: id } } });
    expect((await keys.list('acme', { limit: 10 })).keys.map((k) => k.id)).toEqual([id]);
    await keys.revoke('acme', id, 'root');
    await createApiKey(view.store, { tenant: 'acme', principal: 'demo-user', scopes: ['admin'] }, demo);
    expect(await refusal(demo)).toMatch(/revoked/);
  });

  it('a key minted by a principal records who minted it, through every mint and rotation, and so do the audit envelopes', async () => {
    const admin = await keys.create('acme', { principal: 'ops', scopes: ['admin', 'approvals:decide', 'audit:read'] }, { operator: 'cli:root' });
    const asOps = await resolved(admin.key);
    const minted = await keys.create('acme', { principal: 'helper', scopes: ['admin', 'approvals:decide'] }, asOps);
    expect(minted.info).toMatchObject({ created_by: 'ops', lineage: ['ops'] });
    const asHelper = await resolved(minted.key);
    expect(asHelper).toMatchObject({ principal: 'helper', lineage: ['ops'] });
    const grandchild = await keys.create('acme', { principal: 'sub', scopes: ['approvals:decide'] }, asHelper);
    expect((await resolved(grandchild.key)).lineage).toEqual(['helper', 'ops']);
    // Rotated by another principal: the rotator joins the lineage, which it keeps.
    const rotated = await keys.rotate('acme', grandchild.info.id, asOps, { grace_seconds: 0 });
    expect(rotated.info).toMatchObject({ principal: 'sub', created_by: 'ops', lineage: ['ops', 'helper'] });
    // Read back from the store itself (not the resolver's cache): created_by and lineage are on the record.
    const stored = (await backing.store.get(apiKeyRecordKey(await hashApiKey(rotated.key))))!.data;
    expect(stored).toMatchObject({ created_by: 'ops', lineage: ['ops', 'helper'] });
    const audit = await backing.store.listAudit({ tenant: 'acme', thread_id: KEYS_THREAD }, { limit: 10 });
    const helperCreated = audit.envelopes.find((e) => e.type === 'key.created' && (e.data as { principal?: string }).principal === 'helper')!;
    expect(helperCreated).toMatchObject({ principal: 'ops', data: { created_by: 'ops', created_by_key: admin.info.id, creator_scopes: ['admin', 'approvals:decide', 'audit:read'], scopes: ['admin', 'approvals:decide'], lineage: ['ops'] } });
    expect(audit.envelopes.at(-1)).toMatchObject({ type: 'key.rotated', principal: 'ops', data: { created_by_key: admin.info.id } });
  });

  it('a principal cannot create or rotate a key holding a scope it lacks; the operator on the store can', async () => {
    const admin = await keys.create('acme', { principal: 'agent', scopes: ['admin'] }, { operator: 'cli:root' });
    const asAgent = await resolved(admin.key);
    await expect(keys.create('acme', { principal: 'approver', scopes: ['approvals:decide'] }, asAgent)).rejects.toMatchObject({ code: 'forbidden', message: 'agent lacks "approvals:decide": a key gets only scopes its creator holds' });
    const approver = await keys.create('acme', { principal: 'approver', scopes: ['approvals:decide'] }, { operator: 'cli:root' });
    await expect(keys.rotate('acme', approver.info.id, asAgent, { grace_seconds: 0 })).rejects.toMatchObject({ code: 'forbidden' });
    expect((await keys.get('acme', approver.info.id)).state).toBe('active');
    expect((await keys.list('acme', { limit: 10 })).keys.map((k) => k.principal).sort()).toEqual(['agent', 'approver']);
    expect((await keys.create('acme', { principal: 'reader', scopes: ['admin'] }, asAgent)).info.scopes).toEqual(['admin']);
  });

  it('a key record written before lineages were kept reads its creator as its lineage (unless the operator made it)', async () => {
    const put = async (key: string, data: Record<string, unknown>) => backing.store.put(apiKeyRecordKey(await hashApiKey(key)), { state: 'active', expires_at: 0, data: { tenant: 'acme', scopes: [], created_at: '2029-06-01T00:00:00.000Z', ...data } });
    await put('tg_minted_by_agent_0000000000000000', { principal: 'minted', created_by: 'demo-user' });
    await put('tg_made_by_operator_000000000000000', { principal: 'made', created_by: 'cli:root' });
    expect(await resolved('tg_minted_by_agent_0000000000000000')).toMatchObject({ principal: 'minted', lineage: ['demo-user'] });
    expect(await resolved('tg_made_by_operator_000000000000000')).not.toHaveProperty('lineage');
  });

  async function resolved(key: string) {
    const checked = await resolver.check(key);
    if (!checked.ok) throw new Error(checked.message);
    return checked.principal;
  }
});
