import type { Approval } from '../governance/approval.ts';
import { advanceApproval, decideApproval, type Decision, type DecisionOutcome } from '../governance/approvals.ts';
import { leaseRecord } from '../idempotency/claim.ts';
import type { ToolResult } from './call.ts';
import { elapsedMs, failureResult } from './call.ts';
import type { DispatchDeps } from './context.ts';
import { rejectedFailure } from './approval-results.ts';
import { deferOrAwait, previewArguments, settleExpired } from './parked-call.ts';
import { approvalEnvelope, parkedCallRequest, resultEnvelope, settleParkedCall } from './settle.ts';
import { executeStage } from './stages/execute.ts';
import { validateStage } from './stages/validate.ts';
import { truncateOutput } from '../tools/truncate.ts';

export type DecideOutcome = { ok: true; approval: Approval; result: ToolResult } | Extract<DecisionOutcome, { ok: false }>;

const RESULT_EXCERPT_CHARS = 500;
const LEASE_GRACE_MS = 30_000;

/**
 * A human's decision on a parked call. Exactly one of racing decisions wins; an approval runs
 * the call once (its parked record moves to in_progress by compare-and-set, so a double click
 * or a redelivered webhook finds nothing left to run), a rejection ends it as `denied`.
 */
export async function decideParkedCall(deps: DispatchDeps, approvalId: string, decision: Decision, env: Readonly<Record<string, string | undefined>>, defer?: (work: Promise<unknown>) => void): Promise<DecideOutcome> {
  if (!deps.store) return { ok: false, reason: 'not_found' };
  const outcome = await decideApproval(deps.store, approvalId, decision, deps.now());
  if (!outcome.ok) {
    if (outcome.reason === 'expired' && outcome.approval) await settleExpired(deps, outcome.approval, defer);
    return outcome;
  }
  const approval = outcome.approval;
  deps.log('tools.approval.decided', { tenant: approval.tenant, approval_id: approval.id, state: approval.state, by: decision.by, via: decision.via });
  const result = approval.state === 'rejected' ? await settleRejected(deps, approval, decision.by) : await runApprovedCall(deps, approval, decision.by, env);
  const final: Approval =
    approval.state === 'approved'
      ? { ...approval, state: 'executed', result: { status: result.status, is_error: result.is_error, content: result.content.slice(0, RESULT_EXCERPT_CHARS) } }
      : approval;
  if (final !== approval) await advanceApproval(deps.store, 'approved', final);
  const notifier = deps.approvals?.notifier;
  if (notifier) await deferOrAwait(defer, async () => notifier.settled(final, await previewArguments(deps, final)));
  return { ok: true, approval: final, result };
}

async function settleRejected(deps: DispatchDeps, approval: Approval, by: string): Promise<ToolResult> {
  const result = failureResult({ call_id: approval.call_id, name: approval.tool }, rejectedFailure(approval), performance.now());
  await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, by), resultEnvelope(approval, result, result.content)], { state: 'parked' });
  return result;
}

/** Takes the parked call's record (parked → in_progress), runs the tool, stores and audits the result. */
async function runApprovedCall(deps: DispatchDeps, approval: Approval, by: string, env: Readonly<Record<string, string | undefined>>): Promise<ToolResult> {
  const startedAt = performance.now();
  const call = { call_id: approval.call_id, name: approval.tool };
  const executor = deps.registry.get(approval.tool);
  const timeoutMs = executor?.definition.timeout_ms ?? deps.defaultTimeoutMs;
  const request = { ...parkedCallRequest(deps, approval), lease_ms: timeoutMs + LEASE_GRACE_MS };
  const owner = crypto.randomUUID();
  const taken = await deps.store!.transition(approval.call_key, { state: 'parked', owner: approval.id }, leaseRecord(request, owner));
  if (!taken.ok) {
    const stored = taken.current?.state === 'completed' ? (taken.current.data.result as unknown as ToolResult) : undefined;
    return stored ?? failureResult(call, { code: 'in_progress', message: `This call of \`${approval.tool}\` is already running.` }, startedAt);
  }
  deps.events?.({ type: 'tool_call.start', ...call, thread_id: approval.thread_id, tenant: approval.tenant, arguments: approval.arguments });
  const { result, output } = await executeApproved(deps, approval, env, timeoutMs, startedAt);
  await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, by), resultEnvelope(approval, result, output)], { state: 'in_progress', owner });
  deps.events?.({ type: 'tool_call.end', ...call, thread_id: approval.thread_id, tenant: approval.tenant, result, output });
  deps.metrics?.observe(result);
  return result;
}

/** The execute and truncate stages for an approved call; the tool may have changed since it was parked. */
async function executeApproved(deps: DispatchDeps, approval: Approval, env: Readonly<Record<string, string | undefined>>, timeoutMs: number, startedAt: number): Promise<{ result: ToolResult; output: string }> {
  const call = { call_id: approval.call_id, name: approval.tool };
  const failed = (failure: Parameters<typeof failureResult>[1]) => {
    const result = failureResult(call, failure, startedAt);
    return { result, output: result.content };
  };
  const executor = deps.registry.get(approval.tool);
  if (!executor) return failed({ code: 'unknown_tool', message: `Tool \`${approval.tool}\` no longer exists in this tenant's manifest; the approved call could not run.` });
  const validated = validateStage(deps.schemas, executor.definition, approval.arguments);
  if (!validated.ok) return failed(validated.failure);
  const context = { call_id: approval.call_id, thread_id: approval.thread_id, tenant: approval.tenant, principal: approval.requested_by, env };
  const executed = await executeStage(executor, validated.value, context, timeoutMs);
  if (!executed.ok) return failed(executed.failure);
  const { text, client_call } = executed.value;
  const { content, truncated } = truncateOutput(text, executor.definition.output);
  return { result: { ...call, status: 'ok', is_error: false, content, truncated, ...(client_call ? { client_call } : {}), duration_ms: elapsedMs(startedAt) }, output: text };
}
