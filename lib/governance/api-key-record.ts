import { sha256Hex, toHex } from '../crypto/sha256.ts';
import type { JsonObject } from '../registry/json.ts';
import type { StateRecord, Store } from '../stores/store.ts';

/**
 * How an API key is stored. The key itself never is: its record lives at `apikey/<sha256>`, so a
 * presented key is found with one read. A key also has a stable id (`key_` + 16 hex, derived from
 * the hash, safe to show and log) and a small record at `apikey-id/<tenant>/<id>` that leads from
 * the id to the hash and holds `last_used_at` (the key record itself is only changed by its
 * lifecycle). The tenant's index `apikeys/<tenant>` lists its ids in creation order.
 */
export type StoredKeyState = 'active' | 'revoked' | 'rotated';

export interface ApiKeyRecordData {
  tenant: string;
  principal: string;
  scopes: string[];
  created_at: string;
  /** Absent on keys stored before keys had ids (they gain one when next used). */
  id?: string;
  prefix?: string;
  /** Who created (or last rotated) the key: a principal of the tenant, or the operator (`cli:USER`). */
  created_by?: string;
  /**
   * The principals this key was minted under, nearest first: the principal that created or
   * rotated it through the API or console, the one that minted that one, and so on (empty when
   * the operator made it). Four-eyes reads it (approvals.same_person_as_creator).
   */
  lineage?: string[];
  expires_at?: string | null;
  revoked_at?: string;
  revoked_by?: string;
  rotated_at?: string;
  grace_until?: string;
  replaced_by?: string;
}

const KEY_PREFIX = 'tg_';
/** What of a key may be shown: "tg_" and 8 hex digits, enough to recognise it, useless to guess it. */
export const SHOWN_PREFIX_LENGTH = 11;
export const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;

const part = (value: string) => encodeURIComponent(value);
export const apiKeyRecordKey = (hash: string) => `apikey/${hash}`;
export const apiKeyIdKey = (tenant: string, id: string) => `apikey-id/${part(tenant)}/${id}`;
export const apiKeyIndex = (tenant: string) => `apikeys/${part(tenant)}`;

export function generateApiKey(): string {
  return KEY_PREFIX + toHex(crypto.getRandomValues(new Uint8Array(24)));
}

export const hashApiKey = (key: string) => sha256Hex(key);

/** The id follows from the hash, so a key stored before ids existed gets the same id wherever it is first seen. */
export async function keyIdFor(hash: string): Promise<string> {
  return `key_${(await sha256Hex(`toolgate key id\u0000${hash}`)).slice(0, 16)}`;
}

/** A generated key shows "tg_" and 8 hex digits; a key brought by the operator (the demo key) at most a quarter of itself. */
export const shownPrefix = (key: string) => key.slice(0, /^tg_[0-9a-f]{48}$/.test(key) ? SHOWN_PREFIX_LENGTH : Math.min(SHOWN_PREFIX_LENGTH, Math.floor(key.length / 4)));

/**
 * A key's listing position: creation time in microseconds plus a tail from its id, so two keys
 * (almost) never share one, and writing the entry again leaves it where it was.
 */
export const indexScore = (createdAt: string, id: string) => Date.parse(createdAt) * 1000 + (Number.parseInt(id.slice(-4), 16) % 1000);

export function keyRecord(state: StoredKeyState, data: ApiKeyRecordData, owner?: string): StateRecord {
  return { state, ...(owner !== undefined ? { owner } : {}), expires_at: 0, data: data as unknown as JsonObject };
}

/** The stored data, read defensively: a record written by an older version lacks the lifecycle fields. */
export function readKeyData(record: StateRecord): ApiKeyRecordData {
  const data = record.data;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    tenant: String(data.tenant),
    principal: String(data.principal),
    scopes: Array.isArray(data.scopes) ? data.scopes.map(String) : [],
    created_at: text(data.created_at) ?? new Date(0).toISOString(),
    id: text(data.id),
    prefix: text(data.prefix),
    created_by: text(data.created_by),
    lineage: Array.isArray(data.lineage) ? data.lineage.map(String) : legacyLineage(text(data.created_by)),
    expires_at: text(data.expires_at) ?? null,
    revoked_at: text(data.revoked_at),
    revoked_by: text(data.revoked_by),
    rotated_at: text(data.rotated_at),
    grace_until: text(data.grace_until),
    replaced_by: text(data.replaced_by),
  };
}

/** The operator's name on a key it made on the store (`toolgate keys --tenant`): `cli` or `cli:USER`. */
export const OPERATOR_NAME = /^cli(:|$)/;
/** Mints before lineages were kept: the creator named, unless that was the operator. */
const legacyLineage = (createdBy: string | undefined) => (createdBy === undefined || OPERATOR_NAME.test(createdBy) ? [] : [createdBy]);

export type KeyStanding = { usable: true } | { usable: false; state: 'revoked' | 'expired' | 'rotated' | 'unknown'; message: string };

/** Whether a stored key may be used at `now` (ms), and if not, a message that says why and what to do. */
export function keyStanding(state: string, data: ApiKeyRecordData, now: number): KeyStanding {
  if (state === 'revoked') return { usable: false, state: 'revoked', message: `this API key was revoked${data.revoked_at ? ` at ${data.revoked_at}` : ''}; ask an admin of your tenant for another key` };
  if (data.expires_at && Date.parse(data.expires_at) <= now) {
    return { usable: false, state: 'expired', message: `this API key expired at ${data.expires_at}; ask an admin of your tenant for a new key (toolgate keys create)` };
  }
  if (state === 'rotated') {
    if (data.grace_until && Date.parse(data.grace_until) > now) return { usable: true };
    return { usable: false, state: 'rotated', message: `this API key was rotated${data.rotated_at ? ` at ${data.rotated_at}` : ''} and its grace period ended${data.grace_until ? ` at ${data.grace_until}` : ''}; use the new key${data.replaced_by ? ` (${data.replaced_by})` : ''}` };
  }
  if (state === 'active') return { usable: true };
  return { usable: false, state: 'unknown', message: 'invalid API key' };
}

/**
 * Writes a new key's records: its id record and index entry first, the key record last, so a
 * key is usable only once it can be listed and revoked. Throws if the key is already stored.
 */
export async function storeNewKey(store: Store, hash: string, data: ApiKeyRecordData & { id: string }): Promise<void> {
  const listed = await store.claim(apiKeyIdKey(data.tenant, data.id), { state: 'listed', expires_at: 0, data: { hash, last_used_at: null } });
  if (!listed.claimed && listed.existing.data.hash !== hash) throw new Error(`API key id ${data.id} is taken; create the key again`);
  await store.addToIndex(apiKeyIndex(data.tenant), data.id, indexScore(data.created_at, data.id));
  const claimed = await store.claim(apiKeyRecordKey(hash), keyRecord('active', data));
  if (!claimed.claimed) throw new Error(`API key ${data.id} is already stored`);
}

/** The id record (unless there is one) and index entry of a key; writing them again changes nothing. */
export async function listKey(store: Store, hash: string, data: ApiKeyRecordData & { id: string }, lastUsedAt: string | null = null): Promise<void> {
  await store.claim(apiKeyIdKey(data.tenant, data.id), { state: 'listed', expires_at: 0, data: { hash, last_used_at: lastUsedAt } });
  await store.addToIndex(apiKeyIndex(data.tenant), data.id, indexScore(data.created_at, data.id));
}

