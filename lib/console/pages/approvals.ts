import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { decideParkedCall } from '../../dispatch/approvals/approval-flow.ts';
import { settleInterruptedApproval } from '../../dispatch/approvals/interrupted.ts';
import type { TenantRuntime } from '../../dispatch/tenant-runtime.ts';
import type { Approval } from '../../governance/approval.ts';
import { proofOf } from '../../connections/grant-proof.ts';
import { confusableRefusal } from '../../governance/confusable-names.ts';
import { listApprovals, loadApproval } from '../../governance/approvals.ts';
import { deferFor } from '../../http/defer.ts';
import { requestTrace } from '../../http/tracing.ts';
import { APPROVAL_ID } from '../../http/identifiers.ts';
import { holdsAny, mayOpen } from '../access.ts';
import type { ConsoleEnv } from '../env.ts';
import { messagePage, notice, renderPage } from '../layout.ts';
import { maskedArguments } from '../masked-arguments.ts';
import type { ConsoleOptions } from '../options.ts';
import { requirePage, requireScopes } from '../scope-guard.ts';
import { approvalCard, MAX_REASON_CHARS } from './approval-card.ts';

const PAGE_SIZE = 50;
const CURSOR = /^\d{1,16}$/;

/** Pending approvals (approvals:read or approvals:decide) and deciding them (approvals:decide), within the principal's tenant. */
export function approvalPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  routes.get('/approvals', requirePage('approvals'), async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c);
    const after = c.req.query('after');
    const page = await listApprovals(options.store, c.get('principal').tenant, {
      state: 'pending',
      after: after && CURSOR.test(after) ? Number(after) : undefined,
      limit: PAGE_SIZE,
      refresh: async (a) => (await settleInterruptedApproval(runtime.deps, a, deferFor(c))).approval,
    });
    const now = Date.now();
    const cards = await Promise.all(page.approvals.map(async (a) => approvalCard(c, a, { ...(await cardAccess(c, options, runtime, a)), now, linked: true })));
    const next = page.next !== undefined ? html`<p><a href="/console/approvals?after=${page.next}">Next page</a></p>` : '';
    const summary = page.approvals.length === 0 ? html`<p class="muted" data-role="empty">No calls are waiting for approval.</p>` : html`<p class="muted">${page.approvals.length}${page.next !== undefined ? '+' : ''} waiting, oldest first.</p>`;
    return renderPage(c, { title: 'Pending approvals', current: 'approvals', body: html`${summary}${cards}${next}` });
  });

  routes.get('/approvals/:id', requirePage('approvals'), async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c);
    const approval = await ownApproval(c, options, runtime);
    if (!approval) return notFound(c);
    return showApproval(c, options, runtime, approval);
  });

  routes.post('/approvals/:id', requireScopes('approvals:decide', 'decide approvals'), async (c) => {
    const runtime = await activeRuntime(c, options);
    if (!runtime) return noManifest(c);
    const approval = await ownApproval(c, options, runtime);
    if (!approval) return notFound(c);
    const form = await c.req.parseBody();
    const decision = form.decision;
    const reason = typeof form.reason === 'string' ? form.reason.trim() : '';
    if (decision !== 'approve' && decision !== 'reject') return showApproval(c, options, runtime, approval, { status: 400, message: 'choose Approve or Reject' });
    if (reason.length > MAX_REASON_CHARS) return showApproval(c, options, runtime, approval, { status: 400, message: `the reason is longer than ${MAX_REASON_CHARS} characters; shorten it` });
    const { principal: by, lineage } = c.get('principal');
    const outcome = await decideParkedCall(runtime.deps, approval.id, { decision, by, lineage, proof: proofOf(c.get('principal')), via: 'console', ...(reason ? { reason } : {}) }, options.env, deferFor(c), requestTrace(c));
    if (outcome.ok) return c.redirect(`/console/approvals/${approval.id}`, 303);
    const current = outcome.approval ?? approval;
    switch (outcome.reason) {
      case 'not_found':
        return notFound(c);
      case 'self_approval':
        return showApproval(c, options, runtime, current, { status: 403, message: 'you requested this call, so you cannot approve it (nor can a key its requester minted, or that minted it); ask another approver' });
      case 'confusable_name':
        return showApproval(c, options, runtime, current, { status: 403, message: confusableRefusal(by) });
      case 'not_requester':
        return showApproval(c, options, runtime, current, { status: 403, message: 'this call waits for its requester\'s own confirmation: only they can confirm it; you may reject it' });
      case 'expired':
        return showApproval(c, options, runtime, current, { status: 409, message: `this approval expired at ${current.expires_at}; the call did not run` });
      default:
        return showApproval(c, options, runtime, current, { status: 409, message: refusalMessage(outcome.reason, current) });
    }
  });
}

/** Words for the refusals other than not found, self-approval and expiry (quorum adds `already_decided`). */
function refusalMessage(reason: string, approval: Approval): string {
  if (reason === 'already_decided') return 'you already approved this call; it waits for other approvers';
  return `this approval is already ${approval.state}${approval.decided_by ? ` (by ${approval.decided_by})` : ''}`;
}

export async function activeRuntime(c: Context<ConsoleEnv>, options: ConsoleOptions) {
  return options.tenants.runtime(c.get('principal').tenant);
}

export function noManifest(c: Context<ConsoleEnv>, title = 'Pending approvals') {
  return messagePage(c, 409, title, `tenant "${c.get('principal').tenant}" has no active manifest, so it has no calls to approve; publish and activate one first`);
}

function notFound(c: Context<ConsoleEnv>) {
  return messagePage(c, 404, 'Not found', 'no such approval in your tenant; it may have been removed after its retention period');
}

/** The approval named in the path, if it is this tenant's (another tenant's does not exist here), brought up to date. */
export async function ownApproval(c: Context<ConsoleEnv>, options: ConsoleOptions, runtime: TenantRuntime): Promise<Approval | undefined> {
  const id = c.req.param('id') ?? '';
  if (!APPROVAL_ID.pattern.test(id)) return undefined;
  const approval = await loadApproval(options.store, id);
  if (!approval || approval.tenant !== c.get('principal').tenant) return undefined;
  return (await settleInterruptedApproval(runtime.deps, approval, deferFor(c))).approval;
}

async function showApproval(c: Context<ConsoleEnv>, options: ConsoleOptions, runtime: TenantRuntime, approval: Approval, problem?: { status: 400 | 403 | 409; message: string }) {
  const card = approvalCard(c, approval, { ...(await cardAccess(c, options, runtime, approval)), now: Date.now(), linked: false });
  const back = html`<p><a href="/console/approvals">All pending approvals</a></p>`;
  return renderPage(c, { title: `Approval of ${approval.tool}`, current: 'approvals', status: problem?.status, body: html`${problem ? notice('bad', problem.message) : ''}${card}${back}` });
}

/** What this principal may do with the card, and the arguments as shown (masked by the tool's schema; hidden when the tool is gone). */
async function cardAccess(c: Context<ConsoleEnv>, options: ConsoleOptions, runtime: TenantRuntime, approval: Approval) {
  const principal = c.get('principal');
  return { shownArguments: await maskedArguments(options.store, runtime, approval), mayDecide: holdsAny(principal, ['approvals:decide']), mayReadAudit: mayOpen(principal, 'audit') };
}
