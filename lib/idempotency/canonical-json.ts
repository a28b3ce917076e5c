/**
 * Canonical JSON: object keys sorted, no whitespace, numbers in their shortest round-trip form
 * (so 1.0 and 1 hash the same, and -0 becomes 0). Hashes of arguments and audit envelopes are
 * taken over this text, so the same value always gives the same hash on every runtime.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalise non-finite number ${value}`);
      return JSON.stringify(Object.is(value, -0) ? 0 : value);
    }
    if (value === undefined) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const byte of view) out += HEX[byte];
  return out;
}

/** SHA-256 (hex) of a text, via crypto.subtle so it runs on every runtime. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** SHA-256 of a value's canonical JSON. */
export async function hashJson(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}
