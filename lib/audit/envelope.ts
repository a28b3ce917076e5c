import { canonicalJson, sha256Hex } from '../idempotency/canonical-json.ts';
import type { JsonObject } from '../registry/json.ts';
import type { AuditHead, StoredEnvelope } from '../stores/store.ts';

export type EnvelopeType =
  | 'tool.call.request'
  | 'tool.call.decision'
  | 'tool.call.result'
  | 'tool.call.approval'
  /** A cancel of a call's MCP task that came too late to withdraw its approval (a withdrawal is a `tool.call.approval`). */
  | 'tool.call.cancel'
  | 'manifest.published'
  | 'manifest.activated'
  | 'key.created'
  | 'key.revoked'
  | 'key.rotated'
  /** A user's connection grant stored, refreshed in vain (and dropped), or revoked: `_connections` (lib/connections; never a token). */
  | 'connection.granted'
  | 'connection.refresh_failed'
  | 'connection.revoked';

/** What a writer supplies; the recorder adds id, time, position and hashes. */
export interface EnvelopeDraft {
  type: EnvelopeType;
  call_id: string | null;
  tool: string | null;
  principal: string;
  args_hash: string | null;
  manifest_version?: string;
  data: JsonObject;
}

export interface AuditEnvelope extends StoredEnvelope {
  id: string;
  type: EnvelopeType;
  tenant: string;
  thread_id: string;
  call_id: string | null;
  tool: string | null;
  principal: string;
  time: string;
  args_hash: string | null;
  manifest_version?: string;
  data: JsonObject;
}

/** SHA-256 over the canonical JSON of everything but the hash itself (seq and prev_hash included). */
export function envelopeHash(envelope: Omit<AuditEnvelope, 'hash'> | AuditEnvelope): Promise<string> {
  if (!Object.hasOwn(envelope, 'hash')) return sha256Hex(canonicalJson(envelope));
  const { hash: _hash, ...body } = envelope as AuditEnvelope;
  return sha256Hex(canonicalJson(body));
}

/** Chains drafts onto a thread's head: consecutive seq numbers, each prev_hash the previous hash. */
export async function chainEnvelopes(
  thread: { tenant: string; thread_id: string },
  head: AuditHead | null,
  drafts: Array<EnvelopeDraft & { id: string; time: string }>,
): Promise<AuditEnvelope[]> {
  const chained: AuditEnvelope[] = [];
  let prev = head;
  for (const draft of drafts) {
    const body: Omit<AuditEnvelope, 'hash'> & { hash?: string } = { ...draft, tenant: thread.tenant, thread_id: thread.thread_id, seq: (prev?.seq ?? 0) + 1, prev_hash: prev?.hash ?? null };
    // The hash joins the body it was taken over as its last key (no second copy of the envelope).
    body.hash = await envelopeHash(body);
    const envelope = body as AuditEnvelope;
    chained.push(envelope);
    prev = { seq: envelope.seq, hash: envelope.hash };
  }
  return chained;
}
