import type { Approval } from '../../governance/approval.ts';
import { isConfirm } from '../../governance/approvals.ts';
import type { CallFailure } from '../call.ts';
import { approvalNaming } from '../call-naming.ts';

/** Where the user this agent acts for confirms its calls: named, never linked, in what the model reads (docs/approvals.md: Confirm). */
export const CONFIRM_PAGE_WORDS = 'the toolgate console, on its Confirmations page (signed in with this agent\'s key, or a key of the same person)';

/** The result a model gets while its call waits: what happened, and how to learn the outcome. */
export function pendingApprovalFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  const waits = isConfirm(approval)
    ? `Tool ${naming.tool} waits for the user this agent acts for to confirm it before it runs (approval ${approval.id}, expires ${approval.expires_at}); they confirm or decline it in ${CONFIRM_PAGE_WORDS}. `
    : `Tool ${naming.tool} needs a human's approval before it runs (approval ${approval.id}, expires ${approval.expires_at}). `;
  return {
    code: 'pending_approval',
    message:
      `${waits}It has not run yet. To learn the outcome, send this same call again later (same ${naming.callId} and ${naming.input}), ` +
      `or poll GET /v1/calls/${approval.call_id}?thread_id=${encodeURIComponent(approval.thread_id)}&wait=25. Do not repeat it under a new ${naming.callId}.`,
    details: { approval_id: approval.id, expires_at: approval.expires_at, reason: approval.reason, ...(isConfirm(approval) ? { confirm: true } : {}) },
  };
}

export function rejectedFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  // The approver read the call as the tool it runs as; the model knows it by the native tool's name.
  const why = approval.decision_reason ? `: ${naming.inText(approval.decision_reason)}` : '';
  const declined = approval.decided_via === 'confirm';
  return {
    code: 'denied',
    message: declined
      ? `The user (${approval.decided_by ?? approval.requested_by}) declined this call of ${naming.tool} when asked to confirm it${why}. It did not run.`
      : `A human (${approval.decided_by ?? 'an approver'}) rejected this call of ${naming.tool}${why}. It did not run.`,
    details: { approval_id: approval.id, decided_by: approval.decided_by, reason: approval.decision_reason, ...(declined ? { declined: true } : {}) },
  };
}

export function expiredFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  return {
    code: 'expired',
    message: `Nobody ${isConfirm(approval) ? 'confirmed' : 'approved'} this call of ${naming.tool} before ${approval.expires_at}, so it expired without running. To try again, send it under a new ${naming.callId}.`,
    details: { approval_id: approval.id, expired_at: approval.expires_at },
  };
}

/** The requester took its call back before anyone decided (an MCP client cancelled the task it became, or its user declined to confirm it). */
export function withdrawnFailure(approval: Approval): CallFailure {
  const tool = approvalNaming(approval).tool;
  const who = approval.decided_by ?? approval.requested_by;
  return {
    code: 'denied',
    message: isConfirm(approval)
      ? `This call of ${tool} was declined by the user (${who}) when asked to confirm it, and withdrawn. It did not run.`
      : `This call of ${tool} was withdrawn by its requester (${who}) before anyone approved it. It did not run.`,
    details: { approval_id: approval.id, withdrawn: true, ...(isConfirm(approval) ? { declined: true } : {}) },
  };
}
