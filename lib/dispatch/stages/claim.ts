import { interpretClaim, leaseRecord, type ClaimDecision, type ClaimRequest } from '../../idempotency/claim.ts';
import { settleAbandonedCall } from '../indeterminate.ts';
import { leaseMsFor } from '../lease.ts';
import { parkedCallFailure } from '../approvals/parked-call.ts';
import { hashJson } from '../../idempotency/canonical-json.ts';
import { idempotencyKeyFor } from '../../idempotency/keys.ts';
import { idempotencyModeOf, type ToolDefinition } from '../../registry/definition.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { AuditHead } from '../../stores/store.ts';
import type { CallFailure, ToolResult } from '../call.ts';
import { genericNaming, type CallNaming } from '../call-naming.ts';
import type { CallerContext, DispatchDeps } from '../context.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** A claim this call holds until it completes or releases it. */
export interface HeldClaim {
  request: ClaimRequest;
  owner: string;
}

export interface ClaimStageValue {
  claim?: HeldClaim;
  replay?: ToolResult;
  /** The thread's audit head, read in the same round trip as the claim. */
  head?: AuditHead | null;
}

/**
 * Idempotency: replay a stored result, refuse a live or conflicting claim, or take the claim.
 * If the store cannot be reached, side effects fail closed (`unavailable`); reads run unclaimed.
 */
export async function claimStage(
  deps: DispatchDeps,
  caller: CallerContext,
  callId: string,
  definition: ToolDefinition,
  args: JsonObject,
  argsHash: string | undefined,
  timeoutMs: number,
  naming: CallNaming = genericNaming(definition.name),
): Promise<StageResult<ClaimStageValue>> {
  const mode = idempotencyModeOf(definition);
  if (mode === 'none' || deps.store === undefined) return pass({});
  const args_hash = argsHash ?? (await hashJson(args));
  const key = idempotencyKeyFor(mode, { tenant: caller.tenant, thread_id: caller.thread_id, call_id: callId, tool: definition.name, args_hash });
  if (key === undefined) return pass({});
  const request: ClaimRequest = { key, principal: caller.principal, args_hash, tool: definition.name, lease_ms: leaseMsFor(timeoutMs, deps.leaseGraceMs), ttl_ms: deps.idempotencyTtlMs, now: deps.now() };
  const owner = crypto.randomUUID();

  let decision;
  let head: AuditHead | null;
  try {
    const outcome = await deps.store.claimWithHead(key, leaseRecord(request, owner), { tenant: caller.tenant, thread_id: caller.thread_id });
    decision = interpretClaim(outcome.claim, request, owner);
    head = outcome.head;
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    deps.log('tools.dispatch.failed', { stage: 'claim', tool: definition.name, store: deps.store.name, cause });
    if (definition.tier === 'read') return pass({});
    return fail({
      code: 'unavailable',
      message: `Tool ${naming.tool} was not run: the ${deps.store.name} store is unavailable (${cause}). Nothing was executed; retry later.`,
      details: { store: deps.store.name, cause },
    });
  }
  if (decision.kind === 'claimed') return pass({ claim: { request, owner: decision.owner }, head });
  return existingCallAnswer(deps, decision, key, caller, naming, head);
}

/**
 * What a call is told when its key is already taken: the stored result (replay), a run in
 * progress, a parked call's current state, a side effect whose outcome was lost (settled once as
 * `indeterminate`, never re-run), or a conflict (other arguments under the same key, or another
 * principal's call: told that much and nothing of it).
 */
export async function existingCallAnswer(
  deps: DispatchDeps,
  decision: Exclude<ClaimDecision, { kind: 'claimed' }>,
  key: string,
  caller: Pick<CallerContext, 'tenant' | 'thread_id' | 'defer'>,
  naming: CallNaming,
  head?: AuditHead | null,
): Promise<StageResult<ClaimStageValue>> {
  switch (decision.kind) {
    case 'replay':
      return pass({ replay: decision.result, head });
    case 'abandoned':
      return pass({ replay: await settleAbandonedCall(deps, key, decision.record, { tenant: caller.tenant, thread_id: caller.thread_id }, caller.defer, naming), head });
    case 'parked':
      return fail(await parkedCallFailure(deps, decision.approval_id, caller.defer, naming));
    case 'in_progress':
      return fail({
        code: 'in_progress',
        message: `This call of ${naming.tool} is already running; ask again shortly for its result.`,
        details: { idempotency_key: key, lease_until: new Date(decision.lease_until).toISOString() },
      });
    case 'conflict':
      return fail({
        code: 'conflict',
        message: `A call of ${naming.tool} with the same idempotency key but different ${naming.input} already exists. Use a new ${naming.callId} for different ${naming.input}.`,
        details: { idempotency_key: key, stored_args_hash: decision.stored_args_hash },
      });
    case 'foreign':
      if (decision.unattributed) return fail(unattributedCall(key, naming));
      return fail({
        code: 'conflict',
        message: `Another caller's call of ${naming.tool} already holds this idempotency key in this thread; its result is not yours. Use a new ${naming.callId} (or your own thread).`,
        details: { idempotency_key: key },
      });
  }
}

/**
 * A key holding a call recorded before records named their principal: it may be the caller's own
 * (a retry across the upgrade), whose side effect already ran, so the caller is not sent off to
 * run it again under a new id unwarned.
 */
function unattributedCall(key: string, naming: CallNaming): CallFailure {
  return {
    code: 'conflict',
    message: `A call of ${naming.tool} recorded before toolgate kept whose call it is already holds this idempotency key in this thread, so its result is given to no one. If it was yours, it may have run already (or be running, or be waiting for approval): check its effect before calling again with a new ${naming.callId}.`,
    details: { idempotency_key: key, unattributed: true },
  };
}
