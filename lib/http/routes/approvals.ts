import { Hono } from 'hono';
import { decideParkedCall } from '../../dispatch/approvals/approval-flow.ts';
import type { DispatchDeps } from '../../dispatch/context.ts';
import { settleInterruptedApproval } from '../../dispatch/approvals/interrupted.ts';
import type { Approval, ApprovalState } from '../../governance/approval.ts';
import { proofOf } from '../../connections/grant-proof.ts';
import { confusableRefusal } from '../../governance/confusable-names.ts';
import { approvalsOf, isConfirm, isRequester, listApprovals, loadApproval, quorumOf } from '../../governance/approvals.ts';
import type { Store } from '../../stores/store.ts';
import { approvalView } from '../approval-view.ts';
import { requireScope } from '../auth.ts';
import { deferFor } from '../defer.ts';
import { requestTrace } from '../tracing.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { APPROVAL_ID } from '../identifiers.ts';
import { choiceQuery, cursorQuery, identifierParam, integerQuery } from '../params.ts';
import { readKnownObject } from '../strict-body.ts';

const STATES: ApprovalState[] = ['pending', 'approved', 'rejected', 'expired', 'executed', 'interrupted', 'withdrawn'];
const READ_SCOPES = ['approvals:read', 'approvals:decide'];
const PAGE = { min: 1, max: 200, default: 50 };
const MAX_REASON = 2000;
const DECISION_FIELDS = { fields: ['decision', 'reason'] };

/** GET /v1/approvals, GET /v1/approvals/:id, POST /v1/approvals/:id — always within the caller's tenant. */
export function approvalRoutes(store: Store, env: Readonly<Record<string, string | undefined>>) {
  const routes = new Hono<GatewayEnv>();

  routes.get('/', requireScope(...READ_SCOPES), async (c) => {
    const state = choiceQuery(c, 'state', STATES);
    const after = cursorQuery(c);
    const limit = integerQuery(c, 'limit', PAGE);
    const refresh = currentApproval(c.get('runtime').deps, deferFor(c));
    const page = await listApprovals(store, c.get('principal').tenant, { state, after, limit, refresh });
    const approvals = await Promise.all(page.approvals.map((a) => approvalView(c.get('runtime'), a, store)));
    return c.json({ approvals, ...(page.next !== undefined ? { next_cursor: String(page.next) } : {}) });
  });

  routes.get('/:id', async (c) => {
    const principal = c.get('principal');
    const id = identifierParam(c, 'id', APPROVAL_ID, 'approval id');
    const approval = await loadApproval(store, id);
    // Another tenant's approval does not exist for this key (404, never 403).
    if (!approval || approval.tenant !== principal.tenant) return errorResponse(c, 404, 'not_found', `approval "${id}" not found`);
    const mayRead = approval.requested_by === principal.principal || READ_SCOPES.some((s) => principal.scopes.includes(s));
    if (!mayRead) return errorResponse(c, 403, 'forbidden', 'this API key lacks the scope "approvals:read" and did not request this call');
    return c.json(await approvalView(c.get('runtime'), await currentApproval(c.get('runtime').deps, deferFor(c))(approval), store));
  });

  routes.post('/:id', async (c) => {
    const principal = c.get('principal');
    const id = identifierParam(c, 'id', APPROVAL_ID, 'approval id');
    const found = await loadApproval(store, id);
    const existing = found?.tenant === principal.tenant ? found : undefined;
    // Without the scope, a principal decides only its own calls waiting for its confirmation;
    // anything else is refused as before (for the scope, so nothing is learnt of other approvals).
    if (!principal.scopes.includes('approvals:decide') && !(existing && isConfirm(existing) && isRequester(existing, { name: principal.principal, lineage: principal.lineage }))) {
      return errorResponse(c, 403, 'forbidden', 'this API key lacks the scope "approvals:decide" (without it, a key decides only its own calls that wait for its confirmation)');
    }
    if (!existing) return errorResponse(c, 404, 'not_found', `approval "${id}" not found`);
    // An interrupted approved call settles first, so a late decision is told what became of it.
    await currentApproval(c.get('runtime').deps, deferFor(c))(existing);
    const read = await readKnownObject(c, DECISION_FIELDS);
    if (!read.ok) return read.response;
    const body = read.body;
    if (body.decision !== 'approve' && body.decision !== 'reject') return errorResponse(c, 400, 'invalid_request', 'decision must be "approve" or "reject"');
    if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > MAX_REASON)) {
      return errorResponse(c, 400, 'invalid_request', `reason must be a string of at most ${MAX_REASON} characters`);
    }
    const runtime = c.get('runtime');
    const outcome = await decideParkedCall(runtime.deps, id, { decision: body.decision, by: principal.principal, lineage: principal.lineage, proof: proofOf(principal), via: 'api', reason: body.reason }, env, deferFor(c), requestTrace(c));
    // Short of the quorum, the approval answers with its progress and no result: the call has not run.
    if (outcome.ok) return c.json({ approval: await approvalView(runtime, outcome.approval, store), ...(outcome.result ? { result: outcome.result } : {}) });
    switch (outcome.reason) {
      case 'not_found':
        return errorResponse(c, 404, 'not_found', `approval "${id}" not found`);
      case 'self_approval':
        return errorResponse(c, 403, 'forbidden', SELF_APPROVAL);
      case 'not_requester':
        return errorResponse(c, 403, 'forbidden', NOT_REQUESTER);
      case 'confusable_name':
        return errorResponse(c, 403, 'forbidden', confusableRefusal(principal.principal));
      case 'already_decided':
        return errorResponse(c, 409, 'already_decided', alreadyDecided(principal.principal, outcome.approval));
      case 'expired':
        return errorResponse(c, 409, 'expired', `approval "${id}" expired at ${existing.expires_at}; the call did not run`);
      case 'not_pending':
        return errorResponse(c, 409, 'conflict', `approval "${id}" is already ${outcome.approval?.state ?? 'decided'}${outcome.approval?.decided_by ? ` (by ${outcome.approval.decided_by})` : ''}`);
    }
  });

  return routes;
}

/** Said to a requester trying to approve its own call, under its name or through a key it minted or was minted by. */
const SELF_APPROVAL = 'the principal that requested a call cannot approve it (nor can a key it minted or that minted its key); ask another approver';

/** Said to anyone but the requester trying to approve a confirm approval. */
const NOT_REQUESTER = 'this call waits for its requester\'s own confirmation (the policy says confirm): only the principal that made it (or a key of the same person; for a call made with a sign-in token, that same sign-in) can confirm it; you may reject it';

/** Why a second approval by the same principal does not count, and what the approval still needs. */
function alreadyDecided(principal: string, approval: Approval | undefined): string {
  const missing = approval ? quorumOf(approval) - approvalsOf(approval).length : 1;
  return `${principal} already approved approval "${approval?.id ?? ''}"; it needs ${missing} more approval${missing === 1 ? '' : 's'} from other approvers (a principal counts once, with keys minted from its key)`;
}

/** An approval as it stands now: an approved call interrupted by a stopped gateway is settled when seen. */
function currentApproval(deps: DispatchDeps, defer?: (work: Promise<unknown>) => void) {
  return async (approval: Approval) => (await settleInterruptedApproval(deps, approval, defer)).approval;
}
