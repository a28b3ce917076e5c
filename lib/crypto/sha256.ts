/**
 * SHA-256 as hex. crypto.subtle works on every runtime, but each digest is an asynchronous job
 * (on Node a trip through the thread pool, ~20-40 µs); a Node entrypoint installs node:crypto's
 * synchronous hash instead with `useSha256`. lib/ itself stays on Web Standard APIs.
 */
export type Sha256 = (text: string) => string | Promise<string>;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const byte of view) out += HEX[byte];
  return out;
}

const subtleSha256: Sha256 = async (text) => toHex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));

let implementation: Sha256 = subtleSha256;

/** Installs a faster SHA-256 for this process (the Node entrypoints use node:crypto). */
export function useSha256(sha256: Sha256): void {
  implementation = sha256;
}

export async function sha256Hex(text: string): Promise<string> {
  return implementation(text);
}

/** SHA-256 of bytes as hex (binary content parts: audit keeps their hash, not their bytes). */
export async function sha256BytesHex(bytes: Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}
