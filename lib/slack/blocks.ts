import type { Approval } from '../governance/approval.ts';
import { shownName } from '../governance/confusable-names.ts';
import { approvalContext, detailsFields, policyReason } from './approval-details.ts';
import { decider, decisionsList, decisionText, outcomeText, outcomeTitle, progressText } from './approval-outcome.ts';
import { argumentsPreview, type ArgumentsPreviewOptions } from './arguments-preview.ts';
import { actions, button, header, messageText, section, type Block, type SlackMessage } from './block-kit.ts';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from './interaction.ts';
import { escapeMrkdwn, inlineCode, slackDate } from './mrkdwn.ts';

export type ApprovalMessageOptions = ArgumentsPreviewOptions;

/** block_id of the buttons; the message update drops the block, so old clicks find no buttons. */
export const DECISION_BLOCK_ID = 'toolgate_decision';

/**
 * The message asking a human to decide a parked call: header, details, arguments (sensitive
 * values masked), the policy's reason, id and expiry, and Approve / Reject buttons whose value
 * is the approval id.
 */
export function approvalRequestMessage(approval: Approval, options: ApprovalMessageOptions & { title?: string } = {}): SlackMessage {
  const title = options.title ?? 'Approval needed';
  return {
    text: messageText(`${title}: ${escapeMrkdwn(approval.tool)} requested by ${escapeMrkdwn(shownName(approval.requested_by))}`),
    blocks: [
      header(`${title}: ${approval.tool}`),
      ...quorumProgress(approval),
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
    text: messageText(`${label}${by}: ${escapeMrkdwn(approval.tool)} requested by ${escapeMrkdwn(shownName(approval.requested_by))}`),
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

/** With several approvers: "1 of 2 approvals" and who approved so far (the requester never counts). */
function quorumProgress(approval: Approval): Block[] {
  if ((approval.quorum ?? 1) <= 1) return [];
  const soFar = approval.decisions?.length ? `\n${decisionsList(approval)}` : '';
  return [section(`*Approvals*\n${progressText(approval)}: needs ${approval.quorum} different approvers; the requester cannot be one.${soFar}`)];
}

/** The thread reply sent once, before expiry, when nobody finished deciding. */
export function approvalReminderMessage(approval: Approval, escalatedTo?: string): SlackMessage {
  const progress = (approval.quorum ?? 1) > 1 ? ` (${progressText(approval)} so far)` : '';
  const escalation = escalatedTo ? ` Escalated to <#${escalatedTo}>.` : '';
  const text = `:alarm_clock: Reminder: this approval of ${inlineCode(approval.tool)} is still waiting${progress} and expires ${slackDate(approval.expires_at)}; then the call will not run.${escalation}`;
  return { text: messageText(text), blocks: [section(text)] };
}

/** The request again, in the escalation channel, with its buttons; it points at the original request. */
export function approvalEscalationMessage(approval: Approval, options: ApprovalMessageOptions = {}): SlackMessage {
  const request = approvalRequestMessage(approval, { ...options, title: 'Escalated: approval needed' });
  const where = approval.slack ? `<#${approval.slack.channel}>` : 'its channel';
  const pointer = section(`:rotating_light: Nobody finished deciding this in ${where}, and it expires ${slackDate(approval.expires_at)}.`);
  return { text: request.text, blocks: [request.blocks[0], pointer, ...request.blocks.slice(1)] };
}

function decidedArguments(approval: Approval, options: ApprovalMessageOptions): string {
  if (options.arguments) return argumentsPreview(options.arguments, options);
  if (options.sensitiveFields) return argumentsPreview(approval.arguments, options);
  return `*Arguments*\nNot shown once decided (SHA-256 ${inlineCode(approval.args_hash)}).`;
}
