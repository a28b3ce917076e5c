import { toHex } from './sha256.ts';

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    // Secrets are few (one per tenant integration); the cache saves an import per request.
    if (keyCache.size > 256) keyCache.clear();
    keyCache.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 of a message, hex, via crypto.subtle (every runtime). */
export async function hmacSha256Hex(secret: string, message: string | Uint8Array): Promise<string> {
  const data = typeof message === 'string' ? encoder.encode(message) : message;
  return toHex(await crypto.subtle.sign('HMAC', await hmacKey(secret), data as Uint8Array<ArrayBuffer>));
}

/** Compares two strings in time that depends only on their length, so a forger learns nothing from timing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let i = 0; i < length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}
