import type { Approval } from '../../governance/approval.ts';
import { newApprovalId, saveNewApproval, attachSlackMessage } from '../../governance/approvals.ts';
import type { ParkingDecision } from '../../governance/policy.ts';
import { describeWarnings } from '../../governance/confusable-names.ts';
import { refusedName } from '../../governance/four-eyes.ts';
import { maskSensitive } from '../../audit/redact.ts';
import { interpretClaim, parkedRecord, type ClaimRequest } from '../../idempotency/claim.ts';
import { idempotencyKeyFor } from '../../idempotency/keys.ts';
import type { ToolDefinition } from '../../registry/definition.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { ToolCall } from '../call.ts';
import { callNaming, nativeNamesOfApproval } from '../call-naming.ts';
import type { CallerContext, DispatchDeps } from '../context.ts';
import { pendingApprovalFailure } from '../approvals/results.ts';
import { bindingFor } from '../approvals/approved-tool.ts';
import { deferOrAwait } from '../approvals/notice.ts';
import { existingCallAnswer } from './claim.ts';
import { limitStage } from './limit.ts';
import { fail, type StageResult } from './stage.ts';
import type { ClaimStageValue } from './claim.ts';

/**
 * `review`: park the call for a human. Its key (tenant + thread + call id, whatever the tool's
 * idempotency mode, so polls by call id find it) holds a `parked` record pointing at a new
 * approval; the Slack request goes out; the caller learns the approval id. A call already
 * parked, decided or run under that key gets its current state instead of a second approval.
 * `confirm`: parked the same way, as an approval only its requester decides (quorum 1); nobody
 * else is asked, so no Slack request and no reminder go out.
 */
export async function parkStage(
  deps: DispatchDeps,
  caller: CallerContext,
  call: ToolCall,
  definition: ToolDefinition,
  args: JsonObject,
  args_hash: string,
  decision: ParkingDecision,
): Promise<StageResult<ClaimStageValue>> {
  const { store, approvals } = deps;
  const naming = callNaming(call);
  if (!store || !approvals) {
    return fail({
      code: 'denied',
      message: `Tool ${naming.tool} needs ${decision.action === 'confirm' ? 'its caller\'s confirmation' : 'human approval'} (approval required: ${naming.inText(decision.reason)}), and approvals are not enabled for this tenant.`,
      details: { reason: decision.reason, approval_required: true },
    });
  }
  const fourEyes = approvals.fourEyes ?? {};
  const confirm = decision.action === 'confirm';
  if (refusedName(caller.principal, fourEyes)) {
    return fail({ code: 'denied', message: `Tool ${naming.tool} needs approval, and this tenant approves no call of a confusable name: ${JSON.stringify(caller.principal)} ${describeWarnings(caller.principal)}.`, details: { confusable_name: true } });
  }
  const now = deps.now();
  const key = idempotencyKeyFor('call', { tenant: caller.tenant, thread_id: caller.thread_id, call_id: call.call_id, tool: definition.name, args_hash })!;
  const request: ClaimRequest = { key, principal: caller.principal, args_hash, tool: definition.name, lease_ms: 0, ttl_ms: deps.idempotencyTtlMs, now };
  // The approval is bound to this very definition: the approved call runs it, or nothing (approvals/approved-tool.ts).
  const binding = await bindingFor(deps, definition);
  const manifestVersion = binding.manifest_version ?? caller.manifest_version;
  const approval: Approval = {
    id: (decision.action === 'review' && decision.request_id) || newApprovalId(),
    tenant: caller.tenant,
    thread_id: caller.thread_id,
    call_id: call.call_id,
    tool: definition.name,
    tier: definition.tier,
    call_key: key,
    arguments: args,
    args_hash,
    requested_by: caller.principal,
    ...(confirm ? { kind: 'confirm' as const } : {}),
    ...(caller.lineage?.length ? { requested_by_lineage: [...caller.lineage] } : {}),
    ...(caller.connect?.proof ? { requested_by_proof: caller.connect.proof } : {}),
    ...(Object.keys(fourEyes).length > 0 ? { four_eyes: fourEyes } : {}),
    reason: decision.reason,
    ...(manifestVersion ? { manifest_version: manifestVersion } : {}),
    definition_hash: binding.definition_hash,
    target: binding.target,
    ...nativeNamesOfApproval(call),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + approvals.ttlMs).toISOString(),
    ...(!confirm && approvals.remindBeforeMs && approvals.remindBeforeMs < approvals.ttlMs ? { remind_at: new Date(now + approvals.ttlMs - approvals.remindBeforeMs).toISOString() } : {}),
    state: 'pending',
    quorum: decision.action === 'review' ? decision.quorum ?? 1 : 1,
    decisions: [],
  };
  try {
    const outcome = await store.claimWithHead(key, parkedRecord(request, approval.id, now + approvals.ttlMs), { tenant: caller.tenant, thread_id: caller.thread_id });
    if (!outcome.claim.claimed) {
      const existing = interpretClaim(outcome.claim, request, '');
      if (existing.kind !== 'claimed') return existingCallAnswer(deps, existing, key, caller, naming, outcome.head);
    }
    // A new parked call counts against its window limits now (an approver's yes never meets a
    // used-up limit, and a runaway agent cannot flood approvers); a re-sent one was answered above.
    const limited = deps.limiter?.countsCalls ? await limitStage(deps.limiter, caller, definition.name, 0, now, naming, 'window') : undefined;
    if (limited && !limited.ok) {
      await store.remove(key, { state: 'parked', owner: approval.id });
      return limited;
    }
    await saveNewApproval(store, approval);
  } catch (error) {
    await store.remove(key, { state: 'parked', owner: approval.id }).catch(() => {});
    const cause = error instanceof Error ? error.message : String(error);
    return fail({ code: 'unavailable', message: `Tool ${naming.tool} was not run or parked: the ${store.name} store is unavailable (${cause}). Retry later.`, details: { store: store.name, cause } });
  }
  deps.log('tools.dispatch.parked', { tenant: caller.tenant, call_id: call.call_id, tool: definition.name, approval_id: approval.id, ...(confirm ? { kind: 'confirm' } : {}) });
  const notifier = confirm ? undefined : approvals.notifier;
  if (notifier) {
    await deferOrAwait(caller.defer, async () => {
      const posted = await notifier.requested(approval, await maskSensitive(args, definition.input_schema));
      if (posted) await attachSlackMessage(store, approval.id, posted);
    });
  }
  return fail(pendingApprovalFailure(approval));
}
