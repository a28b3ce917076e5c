import type { RecordStore, Store } from '../stores/store.ts';
import { apiKeyRecordKey, generateApiKey, hashApiKey, keyIdFor, keyRecord, keyStanding, listKey, readKeyData, shownPrefix, storeNewKey, type ApiKeyRecordData } from './api-key-record.ts';
import { KeyUseRecorder } from './key-use.ts';

export { apiKeyRecordKey, generateApiKey } from './api-key-record.ts';

/** Who an API key speaks for. Keys are stored by their SHA-256 only; the key itself is shown once. */
export interface Principal {
  tenant: string;
  principal: string;
  scopes: string[];
  /** The principals this key was minted under, nearest first (api-key-record.ts); absent for tokens and operator-made keys. */
  lineage?: string[];
  /**
   * How the caller proved who it is: an API key (its id), or a token from the tenant's identity
   * provider: its issuer, the audience it was checked for, and where its keys came from (the
   * manifest's `jwks_uri`; absent: the issuer's discovery document).
   */
  credential?: { kind: 'key'; key_id: string } | { kind: 'token'; issuer: string; audience: string; jwks_uri?: string };
  /** A token's verified claims (rule conditions read them as principal.claims); absent for API keys. */
  claims?: Readonly<Record<string, unknown>>;
}

/** A presented key checked: its principal, or why it is refused (a message for the caller). */
export type KeyCheck = { ok: true; principal: Principal } | { ok: false; message: string };

/**
 * Stores a key (hashed) for a principal and returns it; `key` lets callers bring their own (the
 * demo key, registered at every start). Registering a key that is already stored refreshes its
 * principal and scopes while it is active, and leaves it alone once revoked or rotated: a restart
 * never brings back a key an admin retired.
 */
export async function createApiKey(store: Store, principal: Principal, key = generateApiKey()): Promise<{ key: string; hash: string; id: string }> {
  const hash = await hashApiKey(key);
  const id = await keyIdFor(hash);
  const data: ApiKeyRecordData & { id: string } = { tenant: principal.tenant, principal: principal.principal, scopes: principal.scopes, created_at: new Date().toISOString(), id, prefix: shownPrefix(key), expires_at: null, lineage: [] };
  const existing = await store.get(apiKeyRecordKey(hash));
  if (!existing) {
    await storeNewKey(store, hash, data);
    return { key, hash, id };
  }
  if (existing.state === 'active') {
    const current = readKeyData(existing);
    const refreshed: ApiKeyRecordData & { id: string } = { ...current, tenant: data.tenant, principal: data.principal, scopes: data.scopes, id, prefix: data.prefix };
    await listKey(store, hash, refreshed);
    await store.transition(apiKeyRecordKey(hash), { state: 'active' }, keyRecord('active', refreshed));
  }
  return { key, hash, id };
}

/** The principal behind a presented key, or undefined (unknown, revoked, expired, or rotated past its grace). */
export async function findApiKey(store: RecordStore, presented: string): Promise<Principal | undefined> {
  const hash = await hashApiKey(presented);
  const record = await store.get(apiKeyRecordKey(hash));
  if (!record) return undefined;
  const data = readKeyData(record);
  return keyStanding(record.state, data, Date.now()).usable ? principalOf(data, data.id ?? (await keyIdFor(hash))) : undefined;
}

const principalOf = (data: ApiKeyRecordData, id: string): Principal => ({
  tenant: data.tenant,
  principal: data.principal,
  scopes: data.scopes,
  ...(data.lineage?.length ? { lineage: data.lineage } : {}),
  credential: { kind: 'key', key_id: id },
});

interface CachedKey {
  hash: string;
  /** The stored record as last read (undefined: no such key), with the principal it speaks for. */
  found: { state: string; data: ApiKeyRecordData; id: string; principal: Principal } | undefined;
  fetched_at: number;
}

export interface ApiKeyResolverOptions {
  ttlMs?: number;
  staleMs?: number;
  /** Clock (ms since epoch), for tests. */
  now?: () => number;
}

/**
 * Resolves keys through a short per-isolate cache: a key is looked up at most once a minute
 * (`ttlMs`), so a revocation elsewhere takes effect here within that time; `forget` makes it
 * immediate in the isolate that revoked. Expiry and grace periods are checked on every request
 * against the cached record. While the store is unreachable, a key last seen usable keeps working
 * for `staleMs` (read tools still run; side effects fail closed at their idempotency claim), and
 * a key last seen revoked or expired stays refused.
 */
export class ApiKeyResolver {
  readonly #store: Store;
  /** Presented key → what is known of it (the key is hashed only when it is looked up). */
  readonly #cache = new Map<string, CachedKey>();
  /** Key hash → the presented key it was cached under, so `forget` finds it. */
  readonly #cachedHashes = new Map<string, string>();
  readonly #ttlMs: number;
  readonly #staleMs: number;
  readonly #now: () => number;
  readonly #uses: KeyUseRecorder;

  constructor(store: Store, options: ApiKeyResolverOptions = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#staleMs = options.staleMs ?? 15 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#uses = new KeyUseRecorder(store, { intervalMs: this.#ttlMs, now: this.#now });
  }

  /** The principal, or undefined when the key is not usable (see `check` for why). */
  async resolve(presented: string): Promise<Principal | undefined> {
    const checked = await this.check(presented);
    return checked.ok ? checked.principal : undefined;
  }

  /** The principal, or a message saying why the key is refused. Throws when the store cannot tell. */
  async check(presented: string): Promise<KeyCheck> {
    const now = this.#now();
    const known = await this.#lookup(presented, now);
    const found = known.found;
    if (!found) return { ok: false, message: 'invalid API key' };
    const standing = keyStanding(found.state, found.data, now);
    if (!standing.usable) return { ok: false, message: standing.message };
    this.#uses.noteUse(known.hash, found.id, presented, found.state, found.data);
    return { ok: true, principal: found.principal };
  }

  /** Drops what this isolate knows of a key (by hash), so its next use reads the store: revocation here is immediate. */
  forget(hash: string): void {
    const presented = this.#cachedHashes.get(hash);
    if (presented !== undefined) this.#cache.delete(presented);
    this.#cachedHashes.delete(hash);
  }

  async #lookup(presented: string, now: number): Promise<CachedKey> {
    const cached = this.#cache.get(presented);
    if (cached && now - cached.fetched_at < this.#ttlMs) return cached;
    const hash = cached?.hash ?? (await hashApiKey(presented));
    try {
      const record = await this.#store.get(apiKeyRecordKey(hash));
      const data = record ? readKeyData(record) : undefined;
      const id = data && (data.id ?? (await keyIdFor(hash)));
      const entry: CachedKey = { hash, found: record && data && id ? { state: record.state, data, id, principal: principalOf(data, id) } : undefined, fetched_at: now };
      if (this.#cache.size >= 10_000) {
        this.#cache.clear();
        this.#cachedHashes.clear();
      }
      this.#cache.set(presented, entry);
      this.#cachedHashes.set(hash, presented);
      return entry;
    } catch (error) {
      // A key seen usable keeps working a while; one seen revoked or expired stays refused; an
      // unknown (or forgotten) key cannot be checked.
      if (cached?.found && (now - cached.fetched_at < this.#staleMs || !keyStanding(cached.found.state, cached.found.data, now).usable)) return cached;
      throw error;
    }
  }
}
