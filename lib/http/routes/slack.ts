import { Hono } from 'hono';
import { decideParkedCall } from '../../dispatch/approvals/approval-flow.ts';
import type { TenantDirectory } from '../../dispatch/tenant-directory.ts';
import { approvalsOf, loadApproval, quorumOf } from '../../governance/approvals.ts';
import { confusableRefusal } from '../../governance/confusable-names.ts';
import type { SlackConfig } from '../../slack/config.ts';
import { APPROVE_ACTION_ID, parseSlackInteraction } from '../../slack/interaction.ts';
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, verifySlackRequest } from '../../slack/signature.ts';
import type { Store } from '../../stores/store.ts';
import { deferFor } from '../defer.ts';
import { requestTrace } from '../tracing.ts';
import { errorResponse } from '../errors.ts';
import { APPROVAL_ID } from '../identifiers.ts';

/** A reply only the clicking user sees; the original message stays as it is. */
const ephemeral = (text: string) => ({ response_type: 'ephemeral', replace_original: false, text });

/**
 * POST /v1/slack/interactions: an Approve / Reject click. Slack's signature is checked on the raw
 * body before anything else (401 otherwise); the user must be on the tenant's approver list. The
 * decision runs the call (after the response via waitUntil on Workers, inline elsewhere) and the
 * message is updated without buttons. A redelivered or double click finds the approval decided.
 */
export function slackRoutes(store: Store, tenants: TenantDirectory, slack: SlackConfig | undefined, env: Readonly<Record<string, string | undefined>>) {
  const routes = new Hono();
  routes.post('/interactions', async (c) => {
    if (!slack) return errorResponse(c, 503, 'unavailable', 'Slack is not configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET');
    const rawBody = await c.req.text();
    const verified = await verifySlackRequest({ signingSecret: slack.signingSecret, timestamp: c.req.header(SLACK_TIMESTAMP_HEADER), signature: c.req.header(SLACK_SIGNATURE_HEADER), rawBody });
    if (!verified.ok) return errorResponse(c, 401, 'unauthorized', `Slack signature rejected: ${verified.reason}`);
    const parsed = parseSlackInteraction(rawBody);
    if (!parsed.ok) return errorResponse(c, 400, 'invalid_request', parsed.reason);
    const { user, action } = parsed.interaction;
    if (!APPROVAL_ID.pattern.test(action.value)) return errorResponse(c, 400, 'invalid_request', `the button's value must be an approval id: ${APPROVAL_ID.describe}`);
    const approval = await loadApproval(store, action.value);
    const runtime = approval ? await tenants.runtime(approval.tenant) : undefined;
    if (!approval || !runtime) return c.json(ephemeral(`Approval ${action.value} no longer exists.`));
    if (!(runtime.manifest.approvals?.approvers ?? []).includes(user.id)) {
      runtime.deps.log('tools.approval.refused', { approval_id: approval.id, slack_user: user.id, reason: 'not an approver' });
      return c.json(ephemeral(`You are not on the approver list of tenant "${approval.tenant}", so your click changed nothing.`));
    }
    // A Slack user mapped to a principal decides as that principal: the requester's own click never
    // counts, and nobody counts twice by deciding in Slack and through the API.
    const principal = runtime.manifest.approvals?.slack_principals?.[user.id];
    // Four-eyes counts people. An unmapped Slack id cannot be told apart from an API principal (the
    // same person could approve once in each), so with a quorum only mapped users' approvals count.
    if (!principal && action.action_id === APPROVE_ACTION_ID && quorumOf(approval) > 1) {
      runtime.deps.log('tools.approval.refused', { approval_id: approval.id, slack_user: user.id, reason: 'unmapped slack user on a quorum' });
      return c.json(ephemeral(`This call needs ${quorumOf(approval)} different approvers, and toolgate tells people apart in Slack only by the principal a Slack user is mapped to: ask the tenant admin to add ${user.id} to approvals.slack_principals. Your click changed nothing; rejecting still works.`));
    }
    const decision = { decision: action.action_id === APPROVE_ACTION_ID ? ('approve' as const) : ('reject' as const), by: principal ?? user.id, via: 'slack' as const, ...(principal ? { slack_user: user.id } : {}) };
    const defer = deferFor(c);
    const work = decideParkedCall(runtime.deps, approval.id, decision, env, defer, requestTrace(c));
    if (defer) {
      // Workers: answer Slack at once (it wants a reply within 3 s); the call runs afterwards.
      defer(work);
      return c.body(null, 200);
    }
    const outcome = await work;
    if (outcome.ok) return c.body(null, 200);
    const current = outcome.approval;
    if (outcome.reason === 'already_decided') return c.json(ephemeral(`You already approved ${approval.id}; it needs approvals from others (${approvalsOf(current ?? approval).length} of ${quorumOf(approval)} so far).`));
    if (outcome.reason === 'self_approval') return c.json(ephemeral(`You requested this call, so your approval cannot count; ask another approver.`));
    if (outcome.reason === 'confusable_name') return c.json(ephemeral(`Your approval cannot count: ${confusableRefusal(decision.by)}. Rejecting still works.`));
    return c.json(ephemeral(`Nothing to do: approval ${approval.id} is ${current?.state ?? outcome.reason}${current?.decided_by ? ` (decided by ${current.decided_by})` : ''}.`));
  });
  return routes;
}
