import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { decideParkedCall } from '../../dispatch/approvals/approval-flow.ts';
import { settleInterruptedApproval } from '../../dispatch/approvals/interrupted.ts';
import type { TenantRuntime } from '../../dispatch/tenant-runtime.ts';
import type { Approval } from '../../governance/approval.ts';
import { proofOf } from '../../connections/grant-proof.ts';
import { isConfirm, isRequester, listApprovals } from '../../governance/approvals.ts';
import type { Principal } from '../../governance/api-keys.ts';
import { deferFor } from '../../http/defer.ts';
import { requestTrace } from '../../http/tracing.ts';
import { mayOpen } from '../access.ts';
import type { ConsoleEnv } from '../env.ts';
import { csrfField, messagePage, notice, renderPage } from '../layout.ts';
import { maskedArguments } from '../masked-arguments.ts';
import type { ConsoleOptions } from '../options.ts';
import { activeRuntime, noManifest, ownApproval } from './approvals.ts';
import { shortTime } from '../time.ts';
import { approvalCard } from './approval-card.ts';

const PAGE_SIZE = 50;
const TITLE = 'Your confirmations';

/**
 * The requester's own confirmations (the policy's `confirm`): calls an agent made under this
 * principal (or a key of the same person, four-eyes' rules) that wait for this person to confirm
 * them. No scope is needed, and nobody else sees them here: another principal's confirmation, a
 * review, another tenant's approval and an unknown id are all "not found" (404), so a confirm
 * link carries no authority and tells a stranger nothing. Confirm runs the call once, now, as an
 * approval would; Decline refuses it. Both are recorded as the requester's (channel `confirm`).
 */
export function confirmPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  routes.get('/confirm', async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c, TITLE);
    const principal = c.get('principal');
    const page = await listApprovals(options.store, principal.tenant, {
      state: 'pending',
      match: (approval) => isConfirm(approval) && isRequester(approval, asPerson(principal)),
      limit: PAGE_SIZE,
      refresh: async (a) => (await settleInterruptedApproval(runtime.deps, a, deferFor(c))).approval,
    });
    const items = page.approvals.map((a) => html`<li><a href="/console/confirm/${a.id}"><code>${a.tool}</code></a> <span class="muted">requested ${shortTime(a.created_at)}, approval <code>${a.id}</code></span></li>`);
    const body = page.approvals.length === 0 ? html`<p class="muted" data-role="empty">No calls are waiting for your confirmation.</p>` : html`<ul data-role="confirmations">${items}</ul>`;
    return renderPage(c, { title: TITLE, body });
  });

  routes.get('/confirm/:id', async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c, TITLE);
    const approval = await ownConfirmation(c, options, runtime);
    return approval ? showConfirmation(c, options, runtime, approval) : notFound(c);
  });

  routes.post('/confirm/:id', async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c, TITLE);
    const approval = await ownConfirmation(c, options, runtime);
    if (!approval) return notFound(c);
    const choice = (await c.req.parseBody()).decision;
    if (choice !== 'confirm' && choice !== 'decline') return showConfirmation(c, options, runtime, approval, { status: 400, message: 'choose Confirm or Decline' });
    const { principal: by, lineage } = c.get('principal');
    const decision = { decision: choice === 'confirm' ? ('approve' as const) : ('reject' as const), by, lineage, proof: proofOf(c.get('principal')), via: 'confirm' as const };
    const outcome = await decideParkedCall(runtime.deps, approval.id, decision, options.env, deferFor(c), requestTrace(c));
    if (outcome.ok) return c.redirect(`/console/confirm/${approval.id}`, 303);
    if (outcome.reason === 'not_found') return notFound(c);
    const current = outcome.approval ?? approval;
    if (outcome.reason === 'not_requester') return showConfirmation(c, options, runtime, current, { status: 403, message: 'this call was made with a sign-in: confirm it signed in the same way, not with an API key or another sign-in' });
    const message = outcome.reason === 'expired' ? `this confirmation expired at ${current.expires_at}; the call did not run` : `this call is already ${current.state}${current.decided_by ? ` (by ${current.decided_by})` : ''}`;
    return showConfirmation(c, options, runtime, current, { status: outcome.reason === 'confusable_name' ? 403 : 409, message });
  });
}

const asPerson = (principal: Principal) => ({ name: principal.principal, lineage: principal.lineage });

/** The confirm approval named in the path, if it is this principal's own (as four-eyes tells people apart); else nothing. */
async function ownConfirmation(c: Context<ConsoleEnv>, options: ConsoleOptions, runtime: TenantRuntime): Promise<Approval | undefined> {
  const approval = await ownApproval(c, options, runtime);
  return approval && isConfirm(approval) && isRequester(approval, asPerson(c.get('principal'))) ? approval : undefined;
}

function notFound(c: Context<ConsoleEnv>) {
  return messagePage(c, 404, 'Not found', 'no call waiting for your confirmation has this id (it may be another principal\'s, or removed after its retention period)');
}

async function showConfirmation(c: Context<ConsoleEnv>, options: ConsoleOptions, runtime: TenantRuntime, approval: Approval, problem?: { status: 400 | 403 | 409; message: string }) {
  const principal = c.get('principal');
  const card = approvalCard(c, approval, { shownArguments: await maskedArguments(options.store, runtime, approval), mayDecide: false, mayReadAudit: mayOpen(principal, 'audit'), now: Date.now(), linked: false });
  const ask = approval.state === 'pending' ? confirmForm(c, approval) : '';
  const back = html`<p><a href="/console/confirm">All your confirmations</a></p>`;
  return renderPage(c, { title: `Confirm ${approval.tool}`, status: problem?.status, body: html`${problem ? notice('bad', problem.message) : ''}${card}${ask}${back}` });
}

function confirmForm(c: Context<ConsoleEnv>, approval: Approval) {
  return html`<form method="post" action="/console/confirm/${approval.id}" class="card" data-role="confirm">
${csrfField(c)}
<p>An agent signed in as you asks to run <code>${approval.tool}</code> with the arguments above (sensitive values masked). Confirm only if you expect this call: it runs once, now. Decline, and it never runs.</p>
<div class="actions">
<button class="approve" type="submit" name="decision" value="confirm">Confirm</button>
<button class="reject" type="submit" name="decision" value="decline">Decline</button>
</div>
</form>`;
}
