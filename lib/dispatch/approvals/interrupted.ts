import type { Approval } from '../../governance/approval.ts';
import { loadApproval } from '../../governance/approvals.ts';
import { EXECUTING, isAbandonedExecution } from '../../idempotency/execution.ts';
import { ownedBy } from '../../idempotency/record-owner.ts';
import type { StateRecord } from '../../stores/store.ts';
import { leaseMsFor } from '../lease.ts';
import { failureResult, type CallFailure, type ToolResult } from '../call.ts';
import { approvalNaming } from '../call-naming.ts';
import type { DispatchDeps } from '../context.ts';
import { concludeApproval } from './conclusion.ts';
import { settleAbandonedCall } from '../indeterminate.ts';
import { approvalEnvelope, resultEnvelope, settleParkedCall } from '../settle.ts';

type Defer = (work: Promise<unknown>) => void;

/**
 * An approved call whose run was interrupted (the process stopped after the decision) reaches a
 * terminal state lazily, when anything looks at its approval: Workers and Lambda have no
 * background sweeper. Once the call should long have ended (decided + its timeout + the lease
 * grace), its record says what happened:
 * - executing past its deadline: the call is settled `indeterminate`, the approval `interrupted`;
 * - completed: the approval becomes `executed` with the stored result (the process stopped after storing it);
 * - still parked: the call never started; it ends with an error saying so, the approval `interrupted`;
 * - gone (expired): the approval becomes `interrupted` with an `indeterminate` result.
 * Returns the approval as it now stands, and the call's result when this settled it.
 */
export async function settleInterruptedApproval(deps: DispatchDeps, approval: Approval, defer?: Defer): Promise<{ approval: Approval; result?: ToolResult }> {
  const store = deps.store;
  if (!store || approval.state !== 'approved' || !shouldHaveEnded(deps, approval)) return { approval };
  const stored = await store.get(approval.call_key);
  const record = stored && isCallRecordOf(stored, approval) ? stored : undefined;
  const thread = { tenant: approval.tenant, thread_id: approval.thread_id };
  if (record?.state === EXECUTING) {
    if (!isAbandonedExecution(record, deps.now())) return { approval };
    const result = await settleAbandonedCall(deps, approval.call_key, record, thread, defer, approvalNaming(approval));
    return { approval: await reload(deps, approval), result };
  }
  if (record?.state === 'completed') {
    const result = record.data.result as unknown as ToolResult;
    return { approval: await concludeApproval(deps, approval, 'executed', result, defer), result };
  }
  const call = { call_id: approval.call_id, name: approval.tool };
  if (record?.state === 'parked') {
    const result = failureResult(call, neverStartedFailure(approval), performance.now());
    const drafts = [approvalEnvelope(approval, approval.decided_by ?? 'toolgate'), resultEnvelope(approval, result, result.content)];
    if (!(await settleParkedCall(deps, approval, result, drafts, { state: 'parked' }))) return { approval: await reload(deps, approval) };
    return { approval: await concludeApproval(deps, approval, 'interrupted', result, defer), result };
  }
  const lost = failureResult(call, lostRecordFailure(approval), performance.now());
  return { approval: await concludeApproval(deps, approval, 'interrupted', lost, defer), result: lost };
}

/**
 * Whether the record under the approval's key is its call's: its requester's, or parked by it (a
 * parked record is owned by its approval's id, also one written before records named their
 * principal). Once the call's record expired, another principal's call may hold the key (a thread
 * and call id are not secret): that record says nothing of this call.
 */
function isCallRecordOf(record: StateRecord, approval: Approval): boolean {
  return ownedBy(record, approval.requested_by) || record.owner === approval.id;
}

/** What a caller of an approved call is told once its approval was interrupted. */
export function interruptedFailure(approval: Approval): CallFailure {
  const stored = approval.result;
  if (stored?.status === 'error' || stored?.status === 'indeterminate') return { code: stored.status, message: stored.content, details: { approval_id: approval.id } };
  return lostRecordFailure(approval);
}

/** Past the decision, the tool's timeout and the lease grace, a live gateway has long finished the call. */
function shouldHaveEnded(deps: DispatchDeps, approval: Approval): boolean {
  const timeoutMs = deps.registry.get(approval.tool)?.definition.timeout_ms ?? deps.defaultTimeoutMs;
  const decidedAt = Date.parse(approval.decided_at ?? approval.created_at);
  return !(decidedAt + leaseMsFor(timeoutMs, deps.leaseGraceMs) > deps.now());
}

async function reload(deps: DispatchDeps, approval: Approval): Promise<Approval> {
  return (await loadApproval(deps.store!, approval.id, deps.now())) ?? approval;
}

function neverStartedFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  return {
    code: 'error',
    message:
      `This call of ${naming.tool} was approved by ${approval.decided_by ?? 'an approver'}, but the gateway stopped before it started, so it did not run. ` +
      `To run it, send it again under a new ${naming.callId} (it will need approval again).`,
    details: { approval_id: approval.id },
  };
}

function lostRecordFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  return {
    code: 'indeterminate',
    message:
      `This call of ${naming.tool} was approved, but the gateway stopped while it was starting or running, so its outcome is unknown: it may or may not have taken effect. ` +
      `It will not be run again automatically. Check whether it took effect before retrying; to run it again, send it under a new ${naming.callId}.`,
    details: { approval_id: approval.id },
  };
}
