import type { EnvelopeDraft } from '../audit/envelope.ts';
import { loadApproval } from '../governance/approvals.ts';
import { completionChange, type ClaimRequest } from '../idempotency/claim.ts';
import { EXECUTING, executionStartOf, type ExecutionStart } from '../idempotency/execution.ts';
import type { StateRecord, ThreadRef } from '../stores/store.ts';
import { failureResult, type CallFailure, type ToolResult } from './call.ts';
import { approvalNaming, genericNaming, type CallNaming } from './call-naming.ts';
import type { DispatchDeps } from './context.ts';
import { concludeApproval } from './approvals/conclusion.ts';

/** What a model reads about a call whose outcome was lost: it may have run, and what to do. */
export function indeterminateFailure(naming: CallNaming, start: ExecutionStart): CallFailure {
  return {
    code: 'indeterminate',
    message:
      `This call of ${naming.tool} started, but the gateway stopped before it completed, so its outcome is unknown: it may or may not have taken effect. ` +
      `It will not be run again automatically. Check whether it took effect before retrying; to run it again, send it under a new ${naming.callId}.`,
    details: { call_id: start.call_id, deadline: new Date(start.deadline).toISOString(), ...(start.approval_id ? { approval_id: start.approval_id } : {}) },
  };
}

/**
 * Settles a call whose side effect started and never completed (its executing record is past its
 * deadline), once: compare-and-set executing → completed with an `indeterminate` result, then a
 * result envelope for it, so the thread's chain ends in a terminal envelope; an approved call's
 * approval ends `interrupted`. Whoever loses the compare-and-set gets what is stored instead
 * (`replayed`). Nothing is ever run again. The result names the call as `naming` does (the
 * re-sent call's), else as its approval does, else by the tool it ran as.
 */
export async function settleAbandonedCall(deps: DispatchDeps, key: string, record: StateRecord, thread: ThreadRef, defer?: (work: Promise<unknown>) => void, naming?: CallNaming): Promise<ToolResult> {
  const start = executionStartOf(record);
  const tool = String(record.data.tool);
  const named = naming ?? (await startNaming(deps, start, tool));
  const result = failureResult({ call_id: start.call_id, name: tool }, indeterminateFailure(named, start), performance.now());
  if (!deps.store) return result;
  const request: ClaimRequest = { key, principal: start.principal, args_hash: String(record.data.args_hash), tool, lease_ms: 0, ttl_ms: deps.idempotencyTtlMs, now: deps.now() };
  const outcome = (await deps.store.commit({ record: completionChange(request, record.owner, result, deps.now(), EXECUTING) })).record;
  if (!outcome?.ok) {
    const current = outcome?.current;
    return current?.state === 'completed' ? { ...(current.data.result as unknown as ToolResult), replayed: true } : result;
  }
  deps.log('tools.dispatch.indeterminate', { tenant: thread.tenant, thread_id: thread.thread_id, call_id: start.call_id, tool, deadline: start.deadline });
  deps.metrics?.indeterminate();
  await auditSettlement(deps, thread, record, start, result);
  if (start.approval_id) {
    const approval = await loadApproval(deps.store, start.approval_id, deps.now());
    if (approval?.state === 'approved') await concludeApproval(deps, approval, 'interrupted', result, defer);
  }
  return result;
}

/** How an abandoned call's approval (if it had one) names it: the model's names for a native call. */
async function startNaming(deps: DispatchDeps, start: ExecutionStart, tool: string): Promise<CallNaming> {
  const approval = deps.store && start.approval_id ? await loadApproval(deps.store, start.approval_id, deps.now()) : undefined;
  return approval ? approvalNaming(approval) : genericNaming(tool);
}

/** The terminal envelope of the abandoned call, in its own name. A failure is logged: the record already holds the outcome. */
async function auditSettlement(deps: DispatchDeps, thread: ThreadRef, record: StateRecord, start: ExecutionStart, result: ToolResult): Promise<void> {
  if (!deps.audit) return;
  const draft: EnvelopeDraft = {
    type: 'tool.call.result',
    call_id: start.call_id,
    tool: result.name,
    principal: start.principal,
    args_hash: String(record.data.args_hash),
    ...(start.manifest_version ? { manifest_version: start.manifest_version } : {}),
    data: {
      status: result.status,
      is_error: true,
      truncated: false,
      duration_ms: result.duration_ms,
      output: result.content,
      error: { code: 'indeterminate', message: result.content },
      deadline: new Date(start.deadline).toISOString(),
    },
  };
  try {
    await deps.audit.record(thread, [draft]);
  } catch (error) {
    deps.log('tools.dispatch.failed', { stage: 'settle', call_id: start.call_id, error: error instanceof Error ? error.message : String(error) });
  }
}
