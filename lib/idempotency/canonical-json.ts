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
  const keys = Object.keys(record);
  if (!inOrder(keys)) keys.sort();
  let out = '{';
  let separator = '';
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${separator}${quoted(key)}:${canonicalJson(item)}`;
    separator = ',';
  }
  return `${out}}`;
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
