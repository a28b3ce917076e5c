import { AuditRecorder } from '../audit/recorder.ts';
import type { JsonObject } from '../registry/json.ts';
import type { StateRecord, Store } from '../stores/store.ts';
import {
  apiKeyIdKey,
  apiKeyIndex,
  apiKeyRecordKey,
  generateApiKey,
  hashApiKey,
  KEY_ID_PATTERN,
  keyIdFor,
  keyRecord,
  keyStanding,
  readKeyData,
  shownPrefix,
  storeNewKey,
  type ApiKeyRecordData,
} from './api-key-record.ts';
import type { ApiKeyResolver, Principal } from './api-keys.ts';
import { isSignedInPrincipal } from '../connections/signed-in-principals.ts';
import { principalIdentity } from './principal-identity.ts';

export interface ApiKeyInfo {
  /** e.g. "key_" + 16 hex; stable, safe to show and log. */
  id: string;
  /** The first 11 characters of the key ("tg_" + 8 hex), safe to show. */
  prefix: string;
  tenant: string;
  principal: string;
  scopes: string[];
  created_at: string;
  created_by?: string;
  /** The principals the key was minted under, nearest first (absent: none, the operator made it). */
  lineage?: string[];
  /** null = never. */
  expires_at: string | null;
  last_used_at: string | null;
  /** rotated = replaced; still valid until grace_until. */
  state: 'active' | 'revoked' | 'expired' | 'rotated';
  revoked_at?: string;
  revoked_by?: string;
  grace_until?: string;
  replaced_by?: string;
}

type KeyLifecycleCode = 'not_found' | 'conflict' | 'invalid_request' | 'forbidden';

export class KeyLifecycleError extends Error {
  /** The HTTP status each code answers with (admin API, console). */
  static readonly STATUS = { not_found: 404, conflict: 409, forbidden: 403, invalid_request: 400 } as const;
  readonly code: KeyLifecycleCode;
  constructor(code: KeyLifecycleCode, message: string) {
    super(message);
    this.name = 'KeyLifecycleError';
    this.code = code;
  }
}

/**
 * Who creates or rotates a key: a principal of the tenant (the admin API, the console), whose own
 * scopes bound the new key's and who joins its lineage; or the operator working on the store
 * (`toolgate keys --tenant`), who may give any scope and joins no lineage.
 */
export type KeyActor = Principal | { operator: string };
const isOperator = (by: KeyActor): by is { operator: string } => 'operator' in by;
/** How many principals a key's lineage may name: minting deeper is refused (cutting it would let a deep chain forget its root). */
export const MAX_LINEAGE = 64;

/** Where key changes are audited: one thread per tenant. */
export const KEYS_THREAD = '_keys';
export const MAX_PAGE = 200;
/** Rotation grace: at most a week, a day unless asked (time to roll the new key out everywhere). */
export const MAX_GRACE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_GRACE_SECONDS = 24 * 3600;
/** Keys live at most ten years: a later expiry is a mistake (a year typed as 20255). */
export const MAX_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;
const CURSOR = /^\d{1,16}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

interface LoadedKey {
  hash: string;
  record: StateRecord;
  data: ApiKeyRecordData & { id: string };
  last_used_at: string | null;
}

/**
 * Creates, lists, revokes and rotates a tenant's API keys. Every change is audited in the
 * tenant's `_keys` thread (ids, prefixes, principals, scopes, expiry; never key material).
 * With a resolver, a revoked or rotated key is forgotten at once in this isolate; other isolates
 * notice within their key cache's lifetime (60 s).
 */
export class ApiKeyLifecycle {
  readonly #store: Store;
  readonly #resolver: ApiKeyResolver | undefined;
  readonly #audit: AuditRecorder;
  readonly #now: () => number;

  constructor(store: Store, options: { resolver?: ApiKeyResolver; audit?: AuditRecorder; now?: () => number } = {}) {
    this.#store = store;
    this.#resolver = options.resolver;
    this.#audit = options.audit ?? new AuditRecorder(store);
    this.#now = options.now ?? Date.now;
  }

  /** A new key; it expires at `expires_at`, or `expires_in_seconds` from now (not both), or never. */
  async create(tenant: string, request: { principal: string; scopes: string[]; expires_at?: string | null; expires_in_seconds?: number }, by: KeyActor): Promise<{ key: string; info: ApiKeyInfo }> {
    refuseScopesBeyond(by, request.scopes);
    const now = this.#now();
    const expiresAt = this.#checkExpiry(request, now);
    await this.#refuseSignedInName(tenant, request.principal, by);
    const key = generateApiKey();
    const hash = await hashApiKey(key);
    const data = { tenant, principal: request.principal, scopes: [...request.scopes], created_at: new Date(now).toISOString(), created_by: actorName(by), lineage: mintedLineage(by, []), id: await keyIdFor(hash), prefix: shownPrefix(key), expires_at: expiresAt };
    await storeNewKey(this.#store, hash, data);
    const info = this.#info('active', data, null, now);
    await this.#record(tenant, 'key.created', actorName(by), { ...keyFacts(info), ...creatorFacts(by) });
    return { key, info };
  }

  /**
   * A tenant's admin may not mint a key named after a user who signs in through the tenant's
   * identity provider (one who has connected an upstream account): that key would be the user
   * for their call records, streams, tasks and connections list. Their tokens it could not use
   * anyway (grant-proof.ts). Nor may they rotate one minted before the user connected (revoking
   * it stays open). The operator, who owns the store, is not refused.
   */
  async #refuseSignedInName(tenant: string, principal: string, by: KeyActor): Promise<void> {
    if (isOperator(by) || !(await isSignedInPrincipal(this.#store, tenant, principal))) return;
    throw new KeyLifecycleError('conflict', `principal ${JSON.stringify(principal)} is a user who signs in to this tenant through its identity provider and has connected an upstream account; a key cannot be made in their name. Choose another principal name for the key.`);
  }

  async list(tenant: string, page: { after?: string; limit: number }): Promise<{ keys: ApiKeyInfo[]; next?: string }> {
    if (!Number.isSafeInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE) throw new KeyLifecycleError('invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE}`);
    if (page.after !== undefined && !CURSOR.test(page.after)) throw new KeyLifecycleError('invalid_request', 'the cursor must be the next_cursor of a previous page; leave it out for the first page');
    const entries = await this.#store.listIndex(apiKeyIndex(tenant), { after_score: page.after === undefined ? undefined : Number(page.after), limit: page.limit });
    const now = this.#now();
    // A page's keys are read together; an entry whose key is gone (or moved tenant) is skipped.
    const loaded = await Promise.all(entries.map((entry) => this.#load(tenant, entry.member)));
    const keys = loaded.flatMap((key) => (key ? [this.#info(key.record.state, key.data, key.last_used_at, now)] : []));
    return { keys, ...(entries.length === page.limit ? { next: String(entries[entries.length - 1].score) } : {}) };
  }

  /** The key's info, or a not_found error (also for another tenant's key id). */
  async get(tenant: string, id: string): Promise<ApiKeyInfo> {
    const key = await this.#require(tenant, id);
    return this.#info(key.record.state, key.data, key.last_used_at, this.#now());
  }

  /** Revokes an active, rotated or expired key. Revoking a revoked key changes nothing and answers it as it is. */
  async revoke(tenant: string, id: string, by: string): Promise<ApiKeyInfo> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const key = await this.#require(tenant, id);
      const now = this.#now();
      if (key.record.state === 'revoked') return this.#info('revoked', key.data, key.last_used_at, now);
      const data = { ...key.data, revoked_at: new Date(now).toISOString(), revoked_by: by };
      const moved = await this.#store.transition(apiKeyRecordKey(key.hash), { state: key.record.state }, keyRecord('revoked', data));
      if (!moved.ok) continue;
      this.#resolver?.forget(key.hash);
      const info = this.#info('revoked', data, key.last_used_at, now);
      await this.#record(tenant, 'key.revoked', by, { ...keyFacts(info), revoked_at: data.revoked_at });
      return info;
    }
    throw new KeyLifecycleError('conflict', `key ${id} kept changing while it was being revoked; try again`);
  }

  /**
   * Replaces an active key: a new key for the same principal and scopes (living as long as the
   * old one was set to), the old one valid for `grace_seconds` more. Of two rotations of one key
   * at once, one wins; the other is a conflict, so a key has at most one replacement.
   */
  async rotate(tenant: string, id: string, by: KeyActor, options: { grace_seconds: number }): Promise<{ key: string; info: ApiKeyInfo; previous: ApiKeyInfo }> {
    const grace = options.grace_seconds;
    if (!Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) throw new KeyLifecycleError('invalid_request', `grace_seconds must be a whole number from 0 to ${MAX_GRACE_SECONDS} (7 days)`);
    const old = await this.#require(tenant, id);
    // Whoever rotates holds the new key: it may not carry scopes the rotator lacks.
    refuseScopesBeyond(by, old.data.scopes);
    const now = this.#now();
    this.#refuseRotation(old, now);
    // A key in a signed-in user's name minted before they connected: its rotator would hold a new one.
    await this.#refuseSignedInName(tenant, old.data.principal, by);
    const key = generateApiKey();
    const hash = await hashApiKey(key);
    const at = new Date(now).toISOString();
    const next = { tenant, principal: old.data.principal, scopes: old.data.scopes, created_at: at, created_by: actorName(by), lineage: mintedLineage(by, old.data.lineage ?? []), id: await keyIdFor(hash), prefix: shownPrefix(key), expires_at: sameLifetime(old.data, now) };
    const graceEnd = Math.min(now + grace * 1000, old.data.expires_at ? Date.parse(old.data.expires_at) : Number.POSITIVE_INFINITY);
    const replaced = { ...old.data, rotated_at: at, grace_until: new Date(graceEnd).toISOString(), replaced_by: next.id };
    // The old key's compare-and-set decides which rotation wins; the replacement's id is its owner.
    const moved = await this.#store.transition(apiKeyRecordKey(old.hash), { state: 'active' }, keyRecord('rotated', replaced, next.id));
    if (!moved.ok) throw new KeyLifecycleError('conflict', `key ${id} was changed (rotated or revoked) at the same time; list the keys to see where it stands`);
    try {
      await storeNewKey(this.#store, hash, next);
    } catch (error) {
      // The replacement could not be stored: the old key goes back to active, as if never rotated.
      await this.#store.transition(apiKeyRecordKey(old.hash), { state: 'rotated', owner: next.id }, old.record).catch(() => {});
      throw error;
    }
    this.#resolver?.forget(old.hash);
    const info = this.#info('active', next, null, now);
    const previous = this.#info('rotated', replaced, old.last_used_at, now);
    await this.#record(tenant, 'key.rotated', actorName(by), { ...keyFacts(previous), grace_until: replaced.grace_until, replaced_by: info.id, new_prefix: info.prefix, new_expires_at: info.expires_at, ...creatorFacts(by) });
    return { key, info, previous };
  }

  #refuseRotation(key: LoadedKey, now: number): void {
    const standing = keyStanding(key.record.state, key.data, now);
    if (key.record.state === 'revoked') throw new KeyLifecycleError('conflict', `key ${key.data.id} is revoked; create a new key instead`);
    if (!standing.usable && standing.state === 'expired') throw new KeyLifecycleError('conflict', `key ${key.data.id} expired at ${key.data.expires_at}; create a new key instead`);
    if (key.record.state !== 'active') throw new KeyLifecycleError('conflict', `key ${key.data.id} was already rotated; its replacement is ${key.data.replaced_by ?? 'unknown'} (rotate that one instead)`);
  }

  #checkExpiry(request: { expires_at?: string | null; expires_in_seconds?: number }, now: number): string | null {
    const { expires_at: expiresAt, expires_in_seconds: seconds } = request;
    if (seconds !== undefined) {
      if (expiresAt !== undefined && expiresAt !== null) throw new KeyLifecycleError('invalid_request', 'give expires_at or expires_in_seconds, not both');
      if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_LIFETIME_SECONDS) throw new KeyLifecycleError('invalid_request', `expires_in_seconds must be a whole number of seconds from 1 to ${MAX_LIFETIME_SECONDS} (10 years)`);
      return new Date(now + seconds * 1000).toISOString();
    }
    if (expiresAt === undefined || expiresAt === null) return null;
    const at = ISO_TIME.test(expiresAt) ? Date.parse(expiresAt) : Number.NaN;
    if (Number.isNaN(at)) throw new KeyLifecycleError('invalid_request', `expires_at must be an ISO 8601 date and time with a time zone, like 2030-01-31T00:00:00Z (got ${JSON.stringify(expiresAt.slice(0, 40))})`);
    if (at <= now) throw new KeyLifecycleError('invalid_request', `expires_at ${expiresAt} is not in the future`);
    if (at > now + MAX_LIFETIME_SECONDS * 1000) throw new KeyLifecycleError('invalid_request', `expires_at ${expiresAt} is more than 10 years away; leave it out for a key that does not expire`);
    return new Date(at).toISOString();
  }

  async #require(tenant: string, id: string): Promise<LoadedKey> {
    const key = KEY_ID_PATTERN.test(id) ? await this.#load(tenant, id) : undefined;
    if (!key) throw new KeyLifecycleError('not_found', `key ${JSON.stringify(id.slice(0, 40))} not found in tenant "${tenant}"`);
    return key;
  }

  /** The key by id within `tenant` only: another tenant's id finds nothing. */
  async #load(tenant: string, id: string): Promise<LoadedKey | undefined> {
    const listed = await this.#store.get(apiKeyIdKey(tenant, id));
    const hash = listed?.data.hash;
    if (typeof hash !== 'string') return undefined;
    const record = await this.#store.get(apiKeyRecordKey(hash));
    if (!record) return undefined;
    const data = readKeyData(record);
    if (data.tenant !== tenant) return undefined;
    const lastUsed = listed?.data.last_used_at;
    return { hash, record, data: { ...data, id }, last_used_at: typeof lastUsed === 'string' ? lastUsed : null };
  }

  #info(state: string, data: ApiKeyRecordData & { id: string }, lastUsedAt: string | null, now: number): ApiKeyInfo {
    const standing = keyStanding(state, data, now);
    const shown: ApiKeyInfo['state'] = state === 'revoked' ? 'revoked' : !standing.usable && standing.state === 'expired' ? 'expired' : state === 'rotated' ? 'rotated' : 'active';
    return {
      id: data.id,
      prefix: data.prefix ?? '',
      tenant: data.tenant,
      principal: data.principal,
      scopes: data.scopes,
      created_at: data.created_at,
      ...(data.created_by !== undefined ? { created_by: data.created_by } : {}),
      ...(data.lineage?.length ? { lineage: data.lineage } : {}),
      expires_at: data.expires_at ?? null,
      last_used_at: lastUsedAt,
      state: shown,
      ...(data.revoked_at !== undefined ? { revoked_at: data.revoked_at } : {}),
      ...(data.revoked_by !== undefined ? { revoked_by: data.revoked_by } : {}),
      ...(data.grace_until !== undefined ? { grace_until: data.grace_until } : {}),
      ...(data.replaced_by !== undefined ? { replaced_by: data.replaced_by } : {}),
    };
  }

  #record(tenant: string, type: 'key.created' | 'key.revoked' | 'key.rotated', by: string, data: JsonObject): Promise<unknown> {
    return this.#audit.record({ tenant, thread_id: KEYS_THREAD }, [{ type, call_id: null, tool: null, principal: by, args_hash: null, data }]);
  }
}

/** What an audit envelope says of a key: never the key itself, nor its hash. */
function keyFacts(info: ApiKeyInfo): JsonObject {
  return { id: info.id, prefix: info.prefix, principal: info.principal, scopes: info.scopes, expires_at: info.expires_at, lineage: info.lineage ?? [] };
}

const actorName = (by: KeyActor) => (isOperator(by) ? by.operator : by.principal);

/** Who made a key, for its audit envelope: the operator, or a principal with the key it acted with and its scopes. */
function creatorFacts(by: KeyActor): JsonObject {
  if (isOperator(by)) return { created_by: by.operator };
  return { created_by: by.principal, created_by_key: by.credential?.kind === 'key' ? by.credential.key_id : null, creator_scopes: by.scopes };
}

/** A principal cannot hand out what it does not hold (the operator can: it owns the store). */
function refuseScopesBeyond(by: KeyActor, scopes: readonly string[]): void {
  // approvals:decide reads approvals too, so it may hand out approvals:read.
  const held = isOperator(by) ? scopes : by.scopes.includes('approvals:decide') ? [...by.scopes, 'approvals:read'] : by.scopes;
  const beyond = scopes.filter((scope) => !held.includes(scope));
  if (beyond.length > 0) throw new KeyLifecycleError('forbidden', `${actorName(by)} lacks ${beyond.map((s) => `"${s}"`).join(', ')}: a key gets only scopes its creator holds`);
}

/** The lineage of a key minted (or rotated) by `by`: the minter and its own lineage, then what the key had; the operator adds nothing. */
function mintedLineage(by: KeyActor, had: readonly string[]): string[] {
  const names = [...(isOperator(by) ? [] : [by.principal, ...(by.lineage ?? [])]), ...had];
  const lineage = [...new Map(names.map((name) => [principalIdentity(name), name])).values()];
  if (lineage.length > MAX_LINEAGE) throw new KeyLifecycleError('forbidden', `a key minted under more than ${MAX_LINEAGE} principals is refused; ask the operator (toolgate keys create --tenant)`);
  return lineage;
}

/** A replacement lives as long as the key it replaces was set to (from now); a key without expiry gets none. */
function sameLifetime(data: ApiKeyRecordData, now: number): string | null {
  if (!data.expires_at) return null;
  const lifetime = Date.parse(data.expires_at) - Date.parse(data.created_at);
  return lifetime > 0 ? new Date(now + lifetime).toISOString() : null;
}
