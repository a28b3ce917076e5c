import { maskSensitive } from '../audit/redact.ts';
import type { Approval } from '../governance/approval.ts';
import { loadApproval } from '../governance/approvals.ts';
import { failureResult, type CallFailure } from './call.ts';
import type { DispatchDeps } from './context.ts';
import { expiredFailure, pendingApprovalFailure, rejectedFailure } from './approval-results.ts';
import { approvalEnvelope, resultEnvelope, settleParkedCall } from './settle.ts';

/** The approval's arguments with the tool's `x-sensitive` fields masked, for people to read. */
export function previewArguments(deps: DispatchDeps, approval: Approval) {
  return maskSensitive(approval.arguments, deps.registry.get(approval.tool)?.definition.input_schema ?? {});
}

/** Runs follow-up work after the response where the runtime allows it, else now. */
export async function deferOrAwait(defer: ((work: Promise<unknown>) => void) | undefined, work: () => Promise<unknown>): Promise<void> {
  if (defer) defer(work());
  else await work();
}

/**
 * An expired approval ends its call: the call's record gets the `expired` result (so a re-sent
 * call or a poll sees it) and the Slack message shows it.
 */
export async function settleExpired(deps: DispatchDeps, approval: Approval, defer?: (work: Promise<unknown>) => void): Promise<void> {
  const result = failureResult({ call_id: approval.call_id, name: approval.tool }, expiredFailure(approval), performance.now());
  const settled = await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, 'toolgate'), resultEnvelope(approval, result, result.content)], { state: 'parked' });
  const notifier = deps.approvals?.notifier;
  if (settled && notifier) await deferOrAwait(defer, async () => notifier.settled(approval, await previewArguments(deps, approval)));
}

/** What a parked call's caller is told now: still waiting, running, or how it ended. */
export async function parkedCallFailure(deps: DispatchDeps, approvalId: string, defer?: (work: Promise<unknown>) => void): Promise<CallFailure> {
  const approval = deps.store ? await loadApproval(deps.store, approvalId, deps.now()) : undefined;
  if (!approval) return { code: 'error', message: `The approval ${approvalId} for this call is missing; send the call again under a new call_id.` };
  switch (approval.state) {
    case 'pending':
      return pendingApprovalFailure(approval);
    case 'expired':
      await settleExpired(deps, approval, defer);
      return expiredFailure(approval);
    case 'rejected':
      return rejectedFailure(approval);
    case 'approved':
    case 'executed':
      return { code: 'in_progress', message: `This call of \`${approval.tool}\` was approved by ${approval.decided_by ?? 'an approver'} and is running; ask again shortly for its result.`, details: { approval_id: approval.id } };
  }
}
