import type { JsonObject } from '../../registry/json.ts';
import { decodeJson, encodeJson } from './json.ts';
import type { Item } from './requests.ts';
import { StoreUnavailableError, threadKey, type StateRecord, type ThreadRef } from '../store.ts';

/*
 * The single-table layout (docs/stores.md, "Item layout"): every item has a string partition key `pk`
 * and sort key `sk`; the pk prefix says what kind of item it is.
 *   record        pk record#<key>              sk record
 *   audit head    pk audit#<tenant>/<thread>   sk head
 *   envelope      pk audit#<tenant>/<thread>   sk env#<seq, 16 digits>
 *   index entry   pk index#<name>              sk score#<16 hex>#<member>
 *   index member  pk index#<name>              sk member#<member>
 *   limit window  pk limit#<key>               sk window#<start ms>
 *   limit leases  pk limit#<key>               sk leases
 */
const MAX_PK_BYTES = 2048;
const MAX_SK_BYTES = 1024;
const SEQ_DIGITS = 16;

export const recordKey = (key: string): Item => ({ pk: { S: partitionKey(`record#${key}`, 'record key') }, sk: { S: 'record' } });

export const limitKey = (key: string, sk: string): Item => ({ pk: { S: partitionKey(`limit#${key}`, 'limit key') }, sk: { S: sk } });

export const auditPartition = (thread: ThreadRef): string => partitionKey(`audit#${threadKey(thread)}`, 'audit thread (tenant and thread id)');

export const headKey = (thread: ThreadRef): Item => ({ pk: { S: auditPartition(thread) }, sk: { S: 'head' } });

export const envelopeSortKey = (seq: number): string => {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`audit envelope seq must be a non-negative integer, got ${seq}`);
  return `env#${String(seq).padStart(SEQ_DIGITS, '0')}`;
};

export const LAST_ENVELOPE_SORT_KEY = `env#${'9'.repeat(SEQ_DIGITS)}`;

export const indexPartition = (index: string): string => partitionKey(`index#${index}`, 'index name');

export const sortKey = (value: string, what: string): string => checkedBytes(value, MAX_SK_BYTES, what, 'sort');

/** Expiry is decided by conditions on `expires_at`; `ttl` (epoch seconds) only lets DynamoDB sweep dead items lazily. */
export async function recordItem(key: string, record: StateRecord): Promise<Item> {
  return {
    ...recordKey(key),
    state: { S: record.state },
    ...(record.owner !== undefined ? { owner: { S: record.owner } } : {}),
    ...(record.claimable_after !== undefined ? { claimable_after: { N: String(record.claimable_after) } } : {}),
    expires_at: { N: String(record.expires_at) },
    ...(record.expires_at > 0 ? { ttl: { N: String(Math.ceil(record.expires_at / 1000)) } } : {}),
    data: await encodeJson(record.data, `the data of record "${key}"`),
  };
}

export async function recordFromItem(item: Item): Promise<StateRecord> {
  const what = `record item "${item.pk?.S}"`;
  const record: StateRecord = { state: stringAttribute(item, 'state', what), expires_at: numberAttribute(item, 'expires_at', what), data: {} };
  if (item.owner?.S !== undefined) record.owner = item.owner.S;
  if (item.claimable_after?.N !== undefined) record.claimable_after = numberAttribute(item, 'claimable_after', what);
  record.data = (await decodeJson(item.data, what)) as JsonObject;
  return record;
}

export function stringAttribute(item: Item, name: string, what: string): string {
  const value = item[name]?.S;
  if (value === undefined) throw garbage(`${what} has no string attribute "${name}"`);
  return value;
}

export function numberAttribute(item: Item, name: string, what: string): number {
  const value = Number(item[name]?.N);
  if (item[name]?.N === undefined || !Number.isFinite(value)) throw garbage(`${what} has no number attribute "${name}"`);
  return value;
}

function garbage(message: string): StoreUnavailableError {
  return new StoreUnavailableError('dynamodb', new Error(`${message}: was the table written by something else?`));
}

function partitionKey(value: string, what: string): string {
  return checkedBytes(value, MAX_PK_BYTES, what, 'partition');
}

function checkedBytes(value: string, limit: number, what: string, kind: string): string {
  const bytes = new TextEncoder().encode(value).byteLength;
  if (bytes > limit) throw new Error(`${what} is too long for DynamoDB: its ${kind} key would be ${bytes} bytes, at most ${limit} are allowed; use a shorter one`);
  return value;
}
