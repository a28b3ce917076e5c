import type { ToolResult } from '../../dispatch/call.ts';
import type { DispatchDeps } from '../../dispatch/context.ts';
import { loadApproval } from '../../governance/approvals.ts';
import type { JsonObject } from '../../mcp-wire/json-rpc.ts';
import { toCallToolResult } from '../call-result.ts';
import type { McpCallIdentity } from '../call-identity.ts';
import type { TaskOwner } from '../tasks/task-record.ts';
import type { ConfirmAsker } from './confirm-input.ts';
import { newRequestStateId, REQUEST_STATE_TTL_MS, saveRequestState } from './request-state.ts';

/** How a `tools/call` may ask its client for the user's confirmation (confirm-call.ts decides). */
export interface ConfirmOptions {
  asker: ConfirmAsker;
  /** Ask with an `input_required` answer, as this round of asking; absent: only a task carries the request. */
  round?: { number: number; tool: string; args_hash: string };
}

/** Whether a result is a call parked for its requester's own confirmation. */
export const awaitsConfirmation = (result: ToolResult) => result.status === 'pending_approval' && result.error?.details?.confirm === true;

/**
 * The `input_required` answer (2026-07-28 Multi Round-Trip Requests) for a call parked for its
 * user's confirmation: the URL request to the console's confirm page, and a `requestState` handle
 * (request-state.ts) the retry must echo. The answer's `_meta` carries toolgate's status as a
 * result's would. An approval that is no longer pending (decided in between) is answered as the
 * result: the retry would learn nothing more.
 */
export async function askToConfirm(deps: DispatchDeps, owner: TaskOwner, identity: McpCallIdentity, result: ToolResult, approvalId: string, options: ConfirmOptions & { round: NonNullable<ConfirmOptions['round']> }): Promise<JsonObject> {
  const store = deps.store!;
  const approval = await loadApproval(store, approvalId, deps.now());
  if (approval?.state !== 'pending') return toCallToolResult(result);
  const inputRequests = await options.asker.inputRequests(approval);
  const now = deps.now();
  const state = {
    id: newRequestStateId(),
    tenant: owner.tenant,
    principal: owner.principal,
    thread_id: identity.thread_id,
    call_id: identity.call_id,
    tool: options.round.tool,
    args_hash: options.round.args_hash,
    approval_id: approvalId,
    round: options.round.number,
    expires_at: Math.min(now + REQUEST_STATE_TTL_MS, Date.parse(approval.expires_at)),
  };
  await saveRequestState(store, state);
  deps.log('tools.mcp.confirm_asked', { tenant: owner.tenant, approval_id: approvalId, call_id: identity.call_id, round: state.round });
  return { resultType: 'input_required', inputRequests, requestState: state.id, _meta: toCallToolResult(result)._meta };
}
