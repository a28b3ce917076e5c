/**
 * Base64 over Uint8Array with btoa/atob (every runtime has them; Buffer is Node only). Work is
 * done in chunks because String.fromCharCode(...bytes) overflows the call stack on big files.
 */

/** How bytes travel as text in the exec RPC; the exec-server uses Node's native one (lib/exec/server/node-base64.ts). */
export interface Base64Codec {
  encode(bytes: Uint8Array): string;
  /** Throws a SyntaxError naming the problem when the text is not standard base64. */
  decode(text: string): Uint8Array;
}

/** A multiple of 3, so each chunk encodes to whole base64 quads with no padding in the middle. */
const ENCODE_CHUNK_BYTES = 3 * 8192;

export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += ENCODE_CHUNK_BYTES) {
    const chunk = bytes.subarray(start, start + ENCODE_CHUNK_BYTES);
    parts.push(btoa(String.fromCharCode(...chunk)));
  }
  return parts.join('');
}

/** Throws a SyntaxError naming the problem when the text is not standard base64. */
export function decodeBase64(text: string): Uint8Array {
  checkBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Throws a SyntaxError unless the text is standard base64 (decoders elsewhere skip what they do not know). */
export function checkBase64(text: string): void {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new SyntaxError('not standard base64 (A-Z a-z 0-9 + / with "=" padding to a multiple of 4 characters)');
  }
}

/** The Web Standard codec: runs everywhere (the gateway's side of the RPC). */
export const webBase64: Base64Codec = { encode: encodeBase64, decode: decodeBase64 };
