import type { ToolResult } from '../dispatch/call.ts';
import type { JsonObject } from '../registry/json.ts';
import type { RecordStore } from '../stores/store.ts';

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type ClaimDecision =
  | { kind: 'claimed'; owner: string }
  | { kind: 'replay'; result: ToolResult }
  | { kind: 'in_progress'; lease_until: number }
  | { kind: 'conflict'; stored_args_hash: string };

export interface ClaimRequest {
  key: string;
  args_hash: string;
  tool: string;
  /** How long the claimant may run before another attempt may take over. */
  lease_ms: number;
  ttl_ms: number;
  now: number;
}

/**
 * Claims a key for one execution. Exactly one concurrent caller gets `claimed`; the others
 * see the stored result (`replay`), a live lease (`in_progress`), or other arguments under
 * the same key (`conflict`).
 */
export async function claimIdempotencyKey(store: RecordStore, request: ClaimRequest): Promise<ClaimDecision> {
  const owner = crypto.randomUUID();
  const outcome = await store.claim(request.key, {
    state: 'in_progress',
    owner,
    claimable_after: request.now + request.lease_ms,
    expires_at: request.now + request.ttl_ms,
    data: { args_hash: request.args_hash, tool: request.tool },
  });
  if (outcome.claimed) return { kind: 'claimed', owner };
  const existing = outcome.existing;
  const storedHash = String(existing.data.args_hash);
  if (storedHash !== request.args_hash) return { kind: 'conflict', stored_args_hash: storedHash };
  if (existing.state === 'completed') {
    return { kind: 'replay', result: { ...(existing.data.result as unknown as ToolResult), replayed: true } };
  }
  return { kind: 'in_progress', lease_until: existing.claimable_after ?? existing.expires_at };
}

/** Stores the result the model saw under the claimed key; false if the lease was lost meanwhile. */
export async function completeIdempotencyKey(
  store: RecordStore,
  request: Pick<ClaimRequest, 'key' | 'args_hash' | 'tool' | 'ttl_ms' | 'now'>,
  owner: string,
  result: ToolResult,
): Promise<boolean> {
  const { replayed: _replayed, ...stored } = result;
  const outcome = await store.transition(request.key, { state: 'in_progress', owner }, {
    state: 'completed',
    owner,
    expires_at: request.now + request.ttl_ms,
    data: { args_hash: request.args_hash, tool: request.tool, result: stored as unknown as JsonObject },
  });
  return outcome.ok;
}

/** Gives a claim back (infrastructure failed before the tool ran), so a retry can run it. */
export async function releaseIdempotencyKey(store: RecordStore, key: string, owner: string): Promise<void> {
  await store.remove(key, { state: 'in_progress', owner });
}
