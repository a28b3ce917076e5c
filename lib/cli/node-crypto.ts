import { createHash, hash } from 'node:crypto';
import { useSha256 } from '../crypto/sha256.ts';

/**
 * Node's synchronous SHA-256 (about 1 µs a digest instead of a thread-pool round trip): the
 * one-shot crypto.hash where this Node has it (no Hash object per digest: a dispatch takes
 * several), createHash otherwise.
 */
export function useNodeCrypto(): void {
  useSha256(typeof hash === 'function' ? (text) => hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text).digest('hex'));
}
