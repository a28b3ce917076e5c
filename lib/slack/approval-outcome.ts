import type { Approval, ApproverDecision } from '../governance/approval.ts';
import { shownName } from '../governance/confusable-names.ts';
import { codeBlock, escapeMrkdwn, inlineCode, slackDate, truncateMrkdwn } from './mrkdwn.ts';

/** How much of an executed call's result the decided message quotes. */
export const RESULT_EXCERPT_CHARS = 500;

/** Header word and emoji per state; an executed call that failed says so. */
export function outcomeTitle(approval: Approval): { emoji: string; label: string } {
  switch (approval.state) {
    case 'approved': return { emoji: ':white_check_mark:', label: 'Approved' };
    case 'executed': return approval.result?.is_error ? { emoji: ':warning:', label: 'Approved, failed' } : { emoji: ':white_check_mark:', label: 'Approved and executed' };
    case 'interrupted': return { emoji: ':warning:', label: 'Approved, interrupted' };
    case 'rejected': return { emoji: ':no_entry:', label: 'Rejected' };
    case 'expired': return { emoji: ':hourglass:', label: 'Expired' };
    case 'withdrawn': return { emoji: ':leftwards_arrow_with_hook:', label: 'Withdrawn by the requester' };
    default: return { emoji: ':hourglass_flowing_sand:', label: 'Waiting for approval' };
  }
}

/**
 * Who decided: a Slack mention when the decision came from Slack (decided_by holds the Slack
 * user id, optionally as `slack:U123`), else the API principal's name, escaped.
 */
export function decider(approval: Approval): string {
  const who = approval.decided_by;
  if (!who) return 'someone';
  const slackUser = approval.decided_via === 'slack' ? /^(?:slack:)?([UW][A-Z0-9]{2,})$/.exec(who)?.[1] : undefined;
  return slackUser ? `<@${slackUser}>` : escapeMrkdwn(shownName(who));
}

/** One approver as Slack shows them: a mention for a Slack user, else the principal's name, escaped. */
export function approverName(decision: ApproverDecision): string {
  const slackUser = decision.slack_user ?? (decision.via === 'slack' ? /^(?:slack:)?([UW][A-Z0-9]{2,})$/.exec(decision.by)?.[1] : undefined);
  if (!slackUser) return escapeMrkdwn(shownName(decision.by));
  return decision.slack_user ? `<@${slackUser}> (${escapeMrkdwn(shownName(decision.by))})` : `<@${slackUser}>`;
}

const CHANNEL_WORDS: Record<string, string> = { slack: ' in Slack', api: ' via the API', console: ' in the console', mcp: ' over MCP' };

/** Each approver's decision on its own line, with its reason quoted: "1. Approved by <@U1> in Slack". */
export function decisionsList(approval: Approval): string {
  return (approval.decisions ?? [])
    .map((d, i) => {
      const reason = d.reason ? ` — _${escapeMrkdwn(d.reason.replace(/\s+/g, ' '))}_` : '';
      return `${i + 1}. ${d.decision === 'approve' ? 'Approved' : 'Rejected'} by ${approverName(d)}${CHANNEL_WORDS[d.via] ?? ''}${reason}`;
    })
    .join('\n');
}

/** "1 of 2 approvals", for an approval that needs several approvers. */
export function progressText(approval: Approval): string {
  const quorum = approval.quorum ?? 1;
  const approvals = (approval.decisions ?? []).filter((d) => d.decision === 'approve').length;
  return `${approvals} of ${quorum} approvals`;
}

/** "Approved by <@U123> via Slack at <time>", then the decider's reason as a quote; with several approvers, each of them. */
export function decisionText(approval: Approval): string {
  const { emoji } = outcomeTitle(approval);
  if (approval.state === 'expired') return `*Decision*\n${emoji} Nobody decided before ${slackDate(approval.expires_at)}${(approval.quorum ?? 1) > 1 ? ` (${progressText(approval)})` : ''}.`;
  if (approval.state === 'pending') return `*Decision*\n${emoji} Not decided yet.`;
  if (approval.state === 'withdrawn') return `*Decision*\n${emoji} Withdrawn by ${decider(approval)}, who requested the call${CHANNEL_WORDS[approval.decided_via ?? ''] ?? ''}${approval.decided_at ? ` on ${slackDate(approval.decided_at)}` : ''}, before anyone decided.`;
  if ((approval.quorum ?? 1) > 1 && approval.decisions?.length) return `*Decision* (${progressText(approval)})\n${emoji} ${decisionsList(approval)}`;
  const verb = approval.state === 'rejected' ? 'Rejected' : 'Approved';
  const via = approval.decided_via === 'slack' ? ' in Slack' : approval.decided_via === 'api' ? ' via the API' : '';
  const when = approval.decided_at ? ` on ${slackDate(approval.decided_at)}` : '';
  const reason = approval.decision_reason ? `\n>${escapeMrkdwn(approval.decision_reason).replace(/\n/g, '\n>')}` : '';
  return `*Decision*\n${emoji} ${verb} by ${decider(approval)}${via}${when}.${reason}`;
}

/** What happened to the call: its result status and an excerpt, or why it did not run. */
export function outcomeText(approval: Approval): string {
  switch (approval.state) {
    case 'executed': return executedText(approval);
    case 'approved': return '*Outcome*\nRunning: the call was approved and is being executed.';
    case 'interrupted': return interruptedText(approval);
    case 'rejected': return '*Outcome*\nNot run: the call was rejected.';
    case 'expired': return '*Outcome*\nNot run: the approval expired.';
    case 'withdrawn': return '*Outcome*\nNot run: the requester withdrew the call.';
    default: return '*Outcome*\nNot run yet.';
  }
}

/** The gateway stopped while the call was starting or running: say whether it may have run. */
function interruptedText(approval: Approval): string {
  const mayHaveRun = approval.result?.status !== 'error';
  return mayHaveRun
    ? '*Outcome*\nInterrupted: the gateway stopped while the call was running, so it may or may not have taken effect. It will not be run again; check before retrying.'
    : '*Outcome*\nInterrupted: the gateway stopped before the call started, so it did not run.';
}

function executedText(approval: Approval): string {
  const result = approval.result;
  if (!result) return '*Outcome*\nExecuted.';
  const status = `*Outcome*\nExecuted with status ${inlineCode(result.status)}${result.is_error ? ' (error)' : ''}.`;
  if (!result.content) return `${status}\n_No output._`;
  const excerpt = truncateMrkdwn(escapeMrkdwn(result.content), RESULT_EXCERPT_CHARS);
  const note = excerpt.length < escapeMrkdwn(result.content).length ? `\n_Output truncated (${result.content.length.toLocaleString('en-US')} characters in full)._` : '';
  return `${status}\n${codeBlock(excerpt)}${note}`;
}
