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
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise non-finite number ${value}`);
      return Object.is(value, -0) ? '0' : JSON.stringify(value);
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
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    first = false;
  }
  return `${out}}`;
}

/** SHA-256 of a value's canonical JSON. */
export async function hashJson(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}
