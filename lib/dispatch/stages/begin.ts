import { callStartEnvelopes, type CallStart } from '../../audit/call-envelopes.ts';
import { executingChange } from '../../idempotency/execution.ts';
import type { CallFailure, ToolCall } from '../call.ts';
import { callNaming, type CallNaming } from '../call-naming.ts';
import type { CallerContext, DispatchDeps } from '../context.ts';
import type { CallTrace } from '../trace.ts';

/** What the stages know of a call before it runs. */
export type TraceBeforeRun = Omit<CallTrace, 'result' | 'output'>;

export interface BeginOutcome {
  /** The start was committed: the claim's record says executing, the request and decision are audited. */
  started: boolean;
  /** Set when the call must not run. */
  failure?: CallFailure;
}

/**
 * Before a write/execute call's side effect starts, one commit (one round trip) makes it durable:
 * the claim's record moves from its `in_progress` lease to `executing` (which no retry can take
 * over; its deadline in data) and the request and decision envelopes join the audit chain. A
 * process that dies after this point leaves a trace a retry can read as `indeterminate`; one that
 * dies before it leaves only a lease, which a retry takes over and runs (nothing had run).
 */
export async function beginStage(deps: DispatchDeps, caller: CallerContext, call: Pick<ToolCall, 'call_id' | 'name' | 'native'>, trace: TraceBeforeRun, deadline: number): Promise<BeginOutcome> {
  const { store, audit } = deps;
  const { claim } = trace;
  if (!store || (!claim && !audit)) return { started: false };
  const start = { call_id: call.call_id, principal: caller.principal, deadline, ...(caller.manifest_version ? { manifest_version: caller.manifest_version } : {}) };
  const record = claim ? executingChange(claim.request, claim.owner, start, { state: 'in_progress', owner: claim.owner }) : undefined;
  try {
    const outcome = audit
      ? await audit.record({ tenant: caller.tenant, thread_id: caller.thread_id }, await callStartEnvelopes(callStartOf(caller, call, trace)), { record, head: trace.head })
      : (await store.commit({ record })).record;
    if (outcome && !outcome.ok) return { started: true, failure: leaseLostFailure(callNaming(call)) };
    return { started: true };
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    deps.log('tools.dispatch.failed', { stage: 'begin', call_id: call.call_id, tool: call.name, store: store.name, cause });
    return {
      started: false,
      failure: {
        code: 'unavailable',
        message: `Tool ${callNaming(call).tool} was not run: the ${store.name} store is unavailable (${cause}). Nothing was executed; retry later.`,
        details: { store: store.name, cause },
      },
    };
  }
}

/** The request and decision of a call as the audit trail records them. */
export function callStartOf(caller: CallerContext, call: Pick<ToolCall, 'call_id' | 'name'>, trace: TraceBeforeRun): CallStart {
  return {
    call_id: call.call_id,
    tool: call.name,
    principal: caller.principal,
    manifest_version: caller.manifest_version,
    definition: trace.definition,
    args: trace.args,
    raw_arguments: trace.raw_arguments,
    args_hash: trace.args_hash ?? null,
    decision: trace.decision,
  };
}

/** Another attempt took the claim over (this one stalled past its lease before starting): it must not run too. */
function leaseLostFailure(naming: CallNaming): CallFailure {
  return {
    code: 'in_progress',
    message: `This call of ${naming.tool} was taken over by another attempt before it started here, so it did not run here; ask again shortly for its result.`,
  };
}
