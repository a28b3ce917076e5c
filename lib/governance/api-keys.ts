import { sha256Hex, toHex } from '../idempotency/canonical-json.ts';
import type { RecordStore } from '../stores/store.ts';

/** Who an API key speaks for. Keys are stored by their SHA-256 only; the key itself is shown once. */
export interface Principal {
  tenant: string;
  principal: string;
  scopes: string[];
  /** How the caller proved who it is: an API key (its id), or a token from the tenant's identity provider. */
  credential?: { kind: 'key'; key_id: string } | { kind: 'token'; issuer: string };
}

const KEY_PREFIX = 'tg_';

export const apiKeyRecordKey = (hash: string) => `apikey/${hash}`;

export function generateApiKey(): string {
  return KEY_PREFIX + toHex(crypto.getRandomValues(new Uint8Array(24)));
}

/** Stores a key (hashed) for a principal and returns it; `key` lets callers bring their own (the demo key). */
export async function createApiKey(store: RecordStore, principal: Principal, key = generateApiKey()): Promise<{ key: string; hash: string }> {
  const hash = await sha256Hex(key);
  await store.put(apiKeyRecordKey(hash), { state: 'active', expires_at: 0, data: { ...principal, created_at: new Date().toISOString() } });
  return { key, hash };
}

/** The principal behind a presented key, or undefined (unknown or revoked). */
export async function findApiKey(store: RecordStore, presented: string): Promise<Principal | undefined> {
  const record = await store.get(apiKeyRecordKey(await sha256Hex(presented)));
  if (!record || record.state !== 'active') return undefined;
  const { tenant, principal, scopes } = record.data;
  return { tenant: String(tenant), principal: String(principal), scopes: Array.isArray(scopes) ? scopes.map(String) : [] };
}

interface CachedKey {
  principal: Principal | undefined;
  fetched_at: number;
}

/**
 * Resolves keys through a short per-isolate cache: a key is looked up at most once a minute,
 * and while the store is unreachable a key seen recently keeps working (read tools still run;
 * side effects fail closed at their idempotency claim). Revocation takes effect within `ttlMs`.
 */
export class ApiKeyResolver {
  readonly #store: RecordStore;
  readonly #cache = new Map<string, CachedKey>();
  readonly #ttlMs: number;
  readonly #staleMs: number;

  constructor(store: RecordStore, options: { ttlMs?: number; staleMs?: number } = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#staleMs = options.staleMs ?? 15 * 60_000;
  }

  async resolve(presented: string): Promise<Principal | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(presented);
    if (cached && now - cached.fetched_at < this.#ttlMs) return cached.principal;
    try {
      const principal = await findApiKey(this.#store, presented);
      if (this.#cache.size > 10_000) this.#cache.clear();
      this.#cache.set(presented, { principal, fetched_at: now });
      return principal;
    } catch (error) {
      if (cached?.principal && now - cached.fetched_at < this.#staleMs) return cached.principal;
      throw error;
    }
  }
}
