import type { Approval } from '../../governance/approval.ts';
import { loadApproval } from '../../governance/approvals.ts';
import { failureResult, type CallFailure } from '../call.ts';
import { approvalNaming, type CallNaming } from '../call-naming.ts';
import type { DispatchDeps } from '../context.ts';
import { notifySettled } from './notice.ts';
import { expiredFailure, pendingApprovalFailure, rejectedFailure, withdrawnFailure } from './results.ts';
import { interruptedFailure, settleInterruptedApproval } from './interrupted.ts';
import { approvalEnvelope, resultEnvelope, settleParkedCall } from '../settle.ts';

/**
 * An expired approval ends its call: the call's record gets the `expired` result (so a re-sent
 * call or a poll sees it) and the Slack message shows it.
 */
export async function settleExpired(deps: DispatchDeps, approval: Approval, defer?: (work: Promise<unknown>) => void): Promise<void> {
  const result = failureResult({ call_id: approval.call_id, name: approval.tool }, expiredFailure(approval), performance.now());
  const settled = await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, 'toolgate'), resultEnvelope(approval, result, result.content)], { state: 'parked' });
  if (settled) await notifySettled(deps, approval, defer);
}

/**
 * What a parked call's caller is told now: still waiting, running, or how it ended, naming the
 * call as its approval does (`caller` names it only when the approval is gone).
 */
export async function parkedCallFailure(deps: DispatchDeps, approvalId: string, defer?: (work: Promise<unknown>) => void, caller?: CallNaming): Promise<CallFailure> {
  const approval = deps.store ? await loadApproval(deps.store, approvalId, deps.now()) : undefined;
  if (!approval) return { code: 'error', message: `The approval ${approvalId} for this call is missing; send the call again under a new ${caller?.callId ?? 'call_id'}.` };
  return parkedCallState(deps, approval, defer);
}

/** The same, for an approval already read (an expired or interrupted one is settled on the way). */
export async function parkedCallState(deps: DispatchDeps, approval: Approval, defer?: (work: Promise<unknown>) => void): Promise<CallFailure> {
  switch (approval.state) {
    case 'pending':
      return pendingApprovalFailure(approval);
    case 'expired':
      await settleExpired(deps, approval, defer);
      return expiredFailure(approval);
    case 'rejected':
      return rejectedFailure(approval);
    case 'withdrawn':
      return withdrawnFailure(approval);
    case 'approved': {
      const settled = await settleInterruptedApproval(deps, approval, defer);
      if (settled.result?.error) return settled.result.error;
      if (settled.approval.state === 'interrupted') return interruptedFailure(settled.approval);
      return runningFailure(approval);
    }
    case 'executed':
      return runningFailure(approval);
    case 'interrupted':
      return interruptedFailure(approval);
  }
}

function runningFailure(approval: Approval): CallFailure {
  return { code: 'in_progress', message: `This call of ${approvalNaming(approval).tool} was approved by ${approval.decided_by ?? 'an approver'} and is running; ask again shortly for its result.`, details: { approval_id: approval.id } };
}
