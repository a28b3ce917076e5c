import type { StoredEnvelope } from '../stores/store.ts';
import { envelopeHash, type AuditEnvelope } from './envelope.ts';

export type ChainCheck =
  | { ok: true; count: number; head: string | null }
  | { ok: false; count: number; broken_at: number; envelope_id: string; reason: string };

/**
 * Recomputes a thread's chain in order and reports the first broken link: an envelope whose
 * content no longer matches its hash (changed), or whose seq / prev_hash does not follow the
 * previous one (removed, inserted or reordered).
 */
export async function verifyChain(envelopes: Iterable<StoredEnvelope> | AsyncIterable<StoredEnvelope>): Promise<ChainCheck> {
  let previous: StoredEnvelope | null = null;
  let count = 0;
  for await (const envelope of envelopes) {
    count++;
    const id = String((envelope as Partial<AuditEnvelope>).id ?? '?');
    const fail = (reason: string): ChainCheck => ({ ok: false, count, broken_at: envelope.seq, envelope_id: id, reason });
    const expectedSeq = (previous?.seq ?? 0) + 1;
    if (envelope.seq !== expectedSeq) return fail(`expected seq ${expectedSeq} but found seq ${envelope.seq}: an envelope was removed or inserted`);
    if (envelope.prev_hash !== (previous?.hash ?? null)) {
      return fail(`prev_hash does not match the hash of seq ${previous?.seq ?? 0}: the chain was cut or reordered`);
    }
    const recomputed = await envelopeHash(envelope as unknown as AuditEnvelope);
    if (recomputed !== envelope.hash) return fail('content does not match its hash: the envelope was changed after it was written');
    previous = envelope;
  }
  return { ok: true, count, head: previous?.hash ?? null };
}
