import { withdrawApproval, type WithdrawalOutcome } from '../../governance/approvals.ts';
import { failureResult } from '../call.ts';
import type { DispatchDeps } from '../context.ts';
import { notifySettled } from './notice.ts';
import { withdrawnFailure } from './results.ts';
import { settleExpired } from './parked-call.ts';
import { approvalEnvelope, resultEnvelope, settleParkedCall } from '../settle.ts';

/**
 * The requester takes its parked call back before anyone decided (an MCP client cancelling the
 * task its call became). The approval ends `withdrawn` by compare-and-set, exactly as a decision
 * would end it; the call's record gets a result saying so (a re-sent call or a poll sees it) in
 * one commit with the approval and result envelopes; the Slack message shows it. The call never
 * runs: a decision arriving later finds nothing pending.
 */
export async function withdrawParkedCall(deps: DispatchDeps, approvalId: string, by: string, defer?: (work: Promise<unknown>) => void): Promise<WithdrawalOutcome> {
  if (!deps.store) return { ok: false, reason: 'not_found' };
  const outcome = await withdrawApproval(deps.store, approvalId, by, 'mcp', deps.now());
  if (!outcome.ok) {
    if (outcome.reason === 'expired' && outcome.approval) await settleExpired(deps, outcome.approval, defer);
    return outcome;
  }
  const approval = outcome.approval;
  const result = failureResult({ call_id: approval.call_id, name: approval.tool }, withdrawnFailure(approval), performance.now());
  await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, by), resultEnvelope(approval, result, result.content)], { state: 'parked' });
  deps.log('tools.approval.withdrawn', { tenant: approval.tenant, approval_id: approval.id, call_id: approval.call_id, by });
  await notifySettled(deps, approval, defer);
  return outcome;
}
