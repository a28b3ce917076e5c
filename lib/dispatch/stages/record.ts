import { callEnvelopes, callResultEnvelope, type CallRecord } from '../../audit/call-envelopes.ts';
import { completionChange, releaseChange } from '../../idempotency/claim.ts';
import type { CommitRequest } from '../../stores/store.ts';
import type { CallerContext, DispatchDeps } from '../context.ts';
import type { CallTrace } from '../trace.ts';
import { callStartOf } from './begin.ts';

/**
 * Stores what happened: the result under the idempotency claim (or the claim released when the
 * tool never ran) and the envelopes, in one commit: the result envelope when the begin stage
 * already audited the request and decision, all three otherwise. A failure here is logged, never
 * turned into a different result: the model already has this one.
 */
export async function recordStage(deps: DispatchDeps, caller: CallerContext, trace: CallTrace): Promise<void> {
  if (!deps.store) return;
  const { claim, result } = trace;
  const record: CommitRequest['record'] = claim
    ? result.status === 'unavailable' || result.status === 'rate_limited' || result.status === 'authorization_required'
      ? releaseChange(claim.request, claim.owner)
      : completionChange(claim.request, claim.owner, result, deps.now(), trace.started ? 'executing' : 'in_progress')
    : undefined;
  try {
    const audited = auditRecordOf(caller, trace);
    const outcome = deps.audit
      ? await deps.audit.record({ tenant: caller.tenant, thread_id: caller.thread_id }, trace.started ? [await callResultEnvelope(audited)] : await callEnvelopes(audited), { record, head: trace.head })
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
    ...callStartOf(caller, { call_id: result.call_id, name: result.name }, trace),
    result: {
      status: result.status,
      is_error: result.is_error,
      truncated: result.truncated,
      duration_ms: result.duration_ms,
      ...(result.replayed ? { replayed: true } : {}),
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    },
    output: trace.output,
    ...(trace.connections ? { connections: trace.connections } : {}),
    ...(trace.output_content ? { output_content: trace.output_content } : {}),
  };
}
