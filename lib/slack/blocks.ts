import type { Approval } from '../governance/approval.ts';
import { approvalContext, detailsFields, policyReason } from './approval-details.ts';
import { decider, decisionText, outcomeText, outcomeTitle } from './approval-outcome.ts';
import { argumentsPreview, type ArgumentsPreviewOptions } from './arguments-preview.ts';
import { actions, button, header, messageText, section, type SlackMessage } from './block-kit.ts';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from './interaction.ts';
import { escapeMrkdwn, inlineCode } from './mrkdwn.ts';

export type ApprovalMessageOptions = ArgumentsPreviewOptions;

/** block_id of the buttons; the message update drops the block, so old clicks find no buttons. */
export const DECISION_BLOCK_ID = 'toolgate_decision';

/**
 * The message asking a human to decide a parked call: header, details, arguments (sensitive
 * values masked), the policy's reason, id and expiry, and Approve / Reject buttons whose value
 * is the approval id.
 */
export function approvalRequestMessage(approval: Approval, options: ApprovalMessageOptions = {}): SlackMessage {
  return {
    text: messageText(`Approval needed: ${escapeMrkdwn(approval.tool)} requested by ${escapeMrkdwn(approval.requested_by)}`),
    blocks: [
      header(`Approval needed: ${approval.tool}`),
      detailsFields(approval),
      section(argumentsPreview(options.arguments ?? approval.arguments, options)),
      policyReason(approval),
      approvalContext(approval),
      actions(DECISION_BLOCK_ID, [
        button('Approve', APPROVE_ACTION_ID, approval.id, 'primary'),
        button('Reject', REJECT_ACTION_ID, approval.id, 'danger'),
      ]),
    ],
  };
}

/**
 * The same message once decided, without buttons: who decided, when and why, and the outcome
 * (result excerpt when executed; rejected; expired). The arguments are shown only when the
 * options say how to hide what is sensitive (`arguments` or `sensitiveFields`, as for the
 * request); otherwise only their hash, so a caller that forgets the options leaks nothing.
 */
export function approvalDecidedMessage(approval: Approval, options: ApprovalMessageOptions = {}): SlackMessage {
  const { label } = outcomeTitle(approval);
  const by = approval.state === 'expired' || approval.state === 'pending' ? '' : ` by ${decider(approval)}`;
  return {
    text: messageText(`${label}${by}: ${escapeMrkdwn(approval.tool)} requested by ${escapeMrkdwn(approval.requested_by)}`),
    blocks: [
      header(`${label}: ${approval.tool}`),
      section(decisionText(approval)),
      section(outcomeText(approval)),
      detailsFields(approval),
      section(decidedArguments(approval, options)),
      policyReason(approval),
      approvalContext(approval),
    ],
  };
}

function decidedArguments(approval: Approval, options: ApprovalMessageOptions): string {
  if (options.arguments) return argumentsPreview(options.arguments, options);
  if (options.sensitiveFields) return argumentsPreview(approval.arguments, options);
  return `*Arguments*\nNot shown once decided (SHA-256 ${inlineCode(approval.args_hash)}).`;
}
