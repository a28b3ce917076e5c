import { Buffer } from 'node:buffer';
import { checkBase64, type Base64Codec } from '../../crypto/base64.ts';

/**
 * Node's native base64, for the exec-server's side of the RPC: a readFile answer of 32 MiB is
 * encoded in tens of milliseconds, where the Web Standard codec (btoa over chunks) blocks the
 * server's event loop many times longer. The same strict check as the Web codec comes first:
 * Buffer.from skips characters that are not base64 instead of refusing them.
 */
export const nodeBase64: Base64Codec = {
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  decode: (text) => {
    checkBase64(text);
    const buffer = Buffer.from(text, 'base64');
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  },
};
