import { createHash } from 'node:crypto';
import { useSha256 } from '../crypto/sha256.ts';

/** Node's synchronous SHA-256 (about 1 µs a digest instead of a thread-pool round trip). */
export function useNodeCrypto(): void {
  useSha256((text) => createHash('sha256').update(text).digest('hex'));
}
