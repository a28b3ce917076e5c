import { callEnvelopes, type CallRecord } from '../../audit/call-envelopes.ts';
import { completionChange, releaseChange } from '../../idempotency/claim.ts';
import type { CommitRequest } from '../../stores/store.ts';
import type { CallerContext, DispatchDeps } from '../context.ts';
import type { CallTrace } from '../trace.ts';

/**
 * Stores what happened: the result under the idempotency claim (or the claim released when the
 * tool never ran) and the request/decision/result envelopes, in one commit. A failure here is
 * logged, never turned into a different result: the model already has this one.
 */
export async function recordStage(deps: DispatchDeps, caller: CallerContext, trace: CallTrace): Promise<void> {
  if (!deps.store) return;
  const { claim, result } = trace;
  const record: CommitRequest['record'] = claim
    ? result.status === 'unavailable'
      ? releaseChange(claim.request, claim.owner)
      : completionChange(claim.request, claim.owner, result, deps.now())
    : undefined;
  try {
    const outcome = deps.audit
      ? await deps.audit.record({ tenant: caller.tenant, thread_id: caller.thread_id }, await callEnvelopes(auditRecordOf(caller, trace)), { record, head: trace.head })
      : record
        ? (await deps.store.commit({ record })).record
        : undefined;
    if (record && outcome && !outcome.ok) {
      deps.log('tools.dispatch.failed', { stage: 'record', call_id: result.call_id, reason: 'idempotency lease lost before completion' });
    }
  } catch (error) {
    deps.log('tools.dispatch.failed', { stage: 'record', call_id: result.call_id, store: deps.store.name, error: (error as Error).message });
  }
}

function auditRecordOf(caller: CallerContext, trace: CallTrace): CallRecord {
  const { result } = trace;
  return {
    call_id: result.call_id,
    tool: result.name,
    principal: caller.principal,
    manifest_version: caller.manifest_version,
    definition: trace.definition,
    args: trace.args,
    raw_arguments: trace.raw_arguments,
    args_hash: trace.args_hash ?? null,
    decision: trace.decision,
    result: {
      status: result.status,
      is_error: result.is_error,
      truncated: result.truncated,
      duration_ms: result.duration_ms,
      ...(result.replayed ? { replayed: true } : {}),
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    },
    output: trace.output,
  };
}
