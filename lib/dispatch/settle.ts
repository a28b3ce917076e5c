import type { EnvelopeDraft } from '../audit/envelope.ts';
import type { Approval } from '../governance/approval.ts';
import { approvalsOf, quorumOf } from '../governance/approvals.ts';
import { completionChange, type ClaimRequest } from '../idempotency/claim.ts';
import type { JsonObject } from '../registry/json.ts';
import type { ToolResult } from './call.ts';
import type { DispatchDeps } from './context.ts';

/** What settling needs to know of the parked call's record. */
export function parkedCallRequest(deps: DispatchDeps, approval: Approval): ClaimRequest {
  return { key: approval.call_key, principal: approval.requested_by, args_hash: approval.args_hash, tool: approval.tool, lease_ms: 0, ttl_ms: deps.idempotencyTtlMs, now: deps.now() };
}

/**
 * Ends a parked call with its final result (run, rejected, expired or interrupted): the result is
 * stored under the call's key, so a re-sent call or a poll gets it, and audited, in one commit.
 * Returns false when the record was no longer in the expected state (someone else settled it).
 */
export async function settleParkedCall(
  deps: DispatchDeps,
  approval: Approval,
  result: ToolResult,
  drafts: EnvelopeDraft[],
  from: { state: 'parked' } | { state: 'executing'; owner: string },
): Promise<boolean> {
  if (!deps.store) return false;
  // A parked record is owned by its approval's id: never settle a record another call parked under the key since.
  const change = completionChange(parkedCallRequest(deps, approval), from.state === 'executing' ? from.owner : approval.id, result, deps.now(), from.state);
  const thread = { tenant: approval.tenant, thread_id: approval.thread_id };
  const outcome = deps.audit ? await deps.audit.record(thread, drafts, { record: change }) : (await deps.store.commit({ record: change })).record;
  return outcome?.ok ?? false;
}

/**
 * The envelope recording a human decision (or an expiry, or the requester's withdrawal) in the call's thread: one per approver's
 * decision, the partial ones (state `pending`, short of the quorum) included.
 */
export function approvalEnvelope(approval: Approval, principal: string): EnvelopeDraft {
  // An expiry or a withdrawal is nobody's approval decision: the earlier approvals stay in the approval, not in this envelope.
  const last = approval.state === 'expired' || approval.state === 'withdrawn' ? undefined : approval.decisions?.at(-1);
  const via = last?.via ?? approval.decided_via;
  const reason = last ? last.reason : approval.decision_reason;
  return {
    type: 'tool.call.approval',
    call_id: approval.call_id,
    tool: approval.tool,
    principal,
    args_hash: approval.args_hash,
    ...(approval.manifest_version ? { manifest_version: approval.manifest_version } : {}),
    data: {
      approval_id: approval.id,
      state: approval.state,
      // Which definition was approved (approvals/approved-tool.ts): the one that runs, or nothing does.
      ...(approval.definition_hash ? { definition_hash: approval.definition_hash } : {}),
      ...(via ? { via } : {}),
      ...(reason ? { reason } : {}),
      ...(last ? { decision: last.decision, approvals: approvalsOf(approval).length, quorum: quorumOf(approval) } : {}),
      ...(last?.slack_user ? { slack_user: last.slack_user } : {}),
    },
  };
}

/** `content` is what audit keeps of the call's content parts (see auditedContent), when it had any. */
export function resultEnvelope(approval: Approval, result: ToolResult, output: string, content?: JsonObject): EnvelopeDraft {
  return {
    type: 'tool.call.result',
    call_id: approval.call_id,
    tool: approval.tool,
    principal: approval.requested_by,
    args_hash: approval.args_hash,
    ...(approval.manifest_version ? { manifest_version: approval.manifest_version } : {}),
    data: { status: result.status, is_error: result.is_error, truncated: result.truncated, duration_ms: result.duration_ms, output, ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}), ...content },
  };
}
