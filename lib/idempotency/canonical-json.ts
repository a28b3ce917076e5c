import { sha256Hex } from '../crypto/sha256.ts';

export { sha256Hex, toHex } from '../crypto/sha256.ts';

/**
 * Canonical JSON: object keys sorted, no whitespace, numbers in their shortest round-trip form
 * (so 1.0 and 1 hash the same, and -0 becomes 0). Hashes of arguments and audit envelopes are
 * taken over this text, so the same value always gives the same hash on every runtime.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise non-finite number ${value}`);
      return Object.is(value, -0) ? '0' : String(value); // a finite number's String is its JSON text
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? canonicalArray(value) : canonicalObject(value as Record<string, unknown>);
    default:
      return 'null';
  }
}

function canonicalArray(items: unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(items[i]);
  return `${out}]`;
}

function canonicalObject(record: Record<string, unknown>): string {
  const keys = sortedKeys(record);
  let out = '{';
  let separator = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = record[key];
    if (item === undefined) continue;
    out += `${separator}${keyText(key)}${canonicalJson(item)}`;
    separator = ',';
  }
  return `${out}}`;
}

/**
 * A call hashes objects of a few fixed shapes (its envelopes, their data, its arguments), most
 * built with keys out of order: the sorted order of a key list met before is reused instead of
 * sorting it again, as is each key's quoted text. Both caches are bounded and hold only short
 * lists of short keys, so no input can grow them or make them hold much; one that misses sorts.
 */
const MAX_CACHED_KEY = 32;
const MAX_CACHED_KEYS = 16;
const sortedOrders = new Map<string, Array<{ given: string[]; sorted: string[] }>>();
const SORTED_ORDERS_FIRST_KEYS = 128;
const SORTED_ORDERS_PER_FIRST_KEY = 4;
const keyTexts = new Map<string, string>();
const KEY_TEXTS = 1024;

/** The record's own keys in sort()'s order (UTF-16 code units). The array is shared: read it, never change it. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (inOrder(keys)) return keys;
  const known = sortedOrders.get(keys[0]);
  if (known) for (const order of known) if (sameKeys(order.given, keys)) return order.sorted;
  const sorted = [...keys].sort();
  if (keys.length <= MAX_CACHED_KEYS && keys.every((key) => key.length <= MAX_CACHED_KEY)) {
    if (known && known.length < SORTED_ORDERS_PER_FIRST_KEY) known.push({ given: keys, sorted });
    else if (!known && sortedOrders.size < SORTED_ORDERS_FIRST_KEYS) sortedOrders.set(keys[0], [{ given: keys, sorted }]);
  }
  return sorted;
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `"key":` as canonical JSON writes it. */
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${quoted(key)}:`;
    if (key.length <= MAX_CACHED_KEY && keyTexts.size < KEY_TEXTS) keyTexts.set(key, text);
  }
  return text;
}

/** Audit envelopes hash every call: most of their strings need no escape, and most key lists come sorted. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify's text for a string (a lone surrogate is escaped there, so it goes that way). */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Whether `keys` are already in sort()'s order (UTF-16 code units), so sorting can be skipped. */
function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}

/** SHA-256 of a value's canonical JSON. */
export async function hashJson(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}
