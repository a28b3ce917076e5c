import type { ToolResult } from '../dispatch/call.ts';
import type { JsonObject } from '../registry/json.ts';
import type { ClaimOutcome, CommitRequest, StateRecord } from '../stores/store.ts';
import { EXECUTING, executionDeadline, isAbandonedExecution } from './execution.ts';
import { ownedBy } from './record-owner.ts';
import { storableResult } from './stored-result.ts';

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type ClaimDecision =
  | { kind: 'claimed'; owner: string }
  | { kind: 'parked'; approval_id: string }
  | { kind: 'replay'; result: ToolResult }
  | { kind: 'in_progress'; lease_until: number }
  /** A side effect that started and never completed (its deadline passed): settle it, never re-run it. */
  | { kind: 'abandoned'; record: StateRecord }
  | { kind: 'conflict'; stored_args_hash: string }
  /**
   * The key holds another principal's call (a thread and call id, or arguments, it knows of):
   * never theirs to replay or wait on. `unattributed`: a record written before records named
   * their principal, which may be the caller's own call.
   */
  | { kind: 'foreign'; unattributed: boolean };

export interface ClaimRequest {
  key: string;
  /** Whose call it is: kept in every record of the key, which answers no one else. */
  principal: string;
  args_hash: string;
  tool: string;
  /** How long the claimant may run before another attempt may take over. */
  lease_ms: number;
  ttl_ms: number;
  now: number;
}

/** The in-progress lease a call writes to claim its key. */
export function leaseRecord(request: ClaimRequest, owner: string): StateRecord {
  return {
    state: 'in_progress',
    owner,
    claimable_after: request.now + request.lease_ms,
    expires_at: request.now + request.ttl_ms,
    data: { args_hash: request.args_hash, tool: request.tool, principal: request.principal },
  };
}

/**
 * What a claim attempt means. Exactly one concurrent caller gets `claimed`; the others see the
 * stored result (`replay`), a live lease or a running side effect (`in_progress`), a side effect
 * whose outcome was lost (`abandoned`), or other arguments under the same key (`conflict`).
 */
export function interpretClaim(outcome: ClaimOutcome, request: ClaimRequest, owner: string): ClaimDecision {
  if (outcome.claimed) return { kind: 'claimed', owner };
  const existing = outcome.existing;
  // Before anything else about the record (its arguments' hash included) is told.
  if (!ownedBy(existing, request.principal)) return { kind: 'foreign', unattributed: existing.data.principal === undefined };
  const storedHash = String(existing.data.args_hash);
  if (storedHash !== request.args_hash) return { kind: 'conflict', stored_args_hash: storedHash };
  if (existing.state === 'parked') return { kind: 'parked', approval_id: String(existing.data.approval_id) };
  if (existing.state === 'completed') {
    return { kind: 'replay', result: { ...(existing.data.result as unknown as ToolResult), replayed: true } };
  }
  if (existing.state === EXECUTING) {
    return isAbandonedExecution(existing, request.now) ? { kind: 'abandoned', record: existing } : { kind: 'in_progress', lease_until: executionDeadline(existing) };
  }
  return { kind: 'in_progress', lease_until: existing.claimable_after ?? existing.expires_at };
}

/**
 * The record a parked call leaves under its key while a human decides: no lease (nothing is
 * running), alive until well after the approval expires, pointing at the approval.
 */
export function parkedRecord(request: ClaimRequest, approvalId: string, approvalExpiresAt: number): StateRecord {
  return {
    state: 'parked',
    // The approval id as owner: only this park attempt may take the record back on failure.
    owner: approvalId,
    expires_at: approvalExpiresAt + request.ttl_ms,
    data: { args_hash: request.args_hash, tool: request.tool, principal: request.principal, approval_id: approvalId },
  };
}

/** The record change that stores the result the model saw under the claimed key (only while the lease is ours). */
export function completionChange(request: ClaimRequest, owner: string | undefined, result: ToolResult, now: number, from: 'in_progress' | 'executing' | 'parked' = 'in_progress'): NonNullable<CommitRequest['record']> {
  const { replayed: _replayed, ...stored } = storableResult(result);
  return {
    key: request.key,
    expect: { state: from, ...(owner ? { owner } : {}) },
    next: {
      state: 'completed',
      owner,
      expires_at: now + request.ttl_ms,
      data: { args_hash: request.args_hash, tool: request.tool, principal: request.principal, result: stored as unknown as JsonObject },
    },
  };
}

/** The record change that gives a claim back (the tool never ran), so a retry can run it. */
export function releaseChange(request: ClaimRequest, owner: string): NonNullable<CommitRequest['record']> {
  return { key: request.key, expect: { state: ['in_progress', EXECUTING], owner }, next: null };
}
