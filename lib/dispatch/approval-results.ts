import type { Approval } from '../governance/approval.ts';
import type { CallFailure } from './call.ts';
import { approvalNaming } from './call-naming.ts';

/** The result a model gets while its call waits: what happened, and how to learn the outcome. */
export function pendingApprovalFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  return {
    code: 'pending_approval',
    message:
      `Tool ${naming.tool} needs a human's approval before it runs (approval ${approval.id}, expires ${approval.expires_at}). ` +
      `It has not run yet. To learn the outcome, send this same call again later (same ${naming.callId} and ${naming.input}), ` +
      `or poll GET /v1/calls/${approval.call_id}?thread_id=${encodeURIComponent(approval.thread_id)}&wait=25. Do not repeat it under a new ${naming.callId}.`,
    details: { approval_id: approval.id, expires_at: approval.expires_at, reason: approval.reason },
  };
}

export function rejectedFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  // The approver read the call as the tool it runs as; the model knows it by the native tool's name.
  const why = approval.decision_reason ? `: ${naming.inText(approval.decision_reason)}` : '';
  return {
    code: 'denied',
    message: `A human (${approval.decided_by ?? 'an approver'}) rejected this call of ${naming.tool}${why}. It did not run.`,
    details: { approval_id: approval.id, decided_by: approval.decided_by, reason: approval.decision_reason },
  };
}

export function expiredFailure(approval: Approval): CallFailure {
  const naming = approvalNaming(approval);
  return {
    code: 'expired',
    message: `Nobody approved this call of ${naming.tool} before ${approval.expires_at}, so it expired without running. To try again, send it under a new ${naming.callId}.`,
    details: { approval_id: approval.id, expired_at: approval.expires_at },
  };
}

/** The requester took its call back before anyone decided (an MCP client cancelled the task it became). */
export function withdrawnFailure(approval: Approval): CallFailure {
  return {
    code: 'denied',
    message: `This call of ${approvalNaming(approval).tool} was withdrawn by its requester (${approval.decided_by ?? approval.requested_by}) before anyone approved it. It did not run.`,
    details: { approval_id: approval.id, withdrawn: true },
  };
}
