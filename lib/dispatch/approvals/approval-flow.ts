import { auditedContent } from '../../audit/content-digest.ts';
import type { Approval } from '../../governance/approval.ts';
import { approvalsOf, decideApproval, quorumOf, type Decision, type DecisionOutcome } from '../../governance/approvals.ts';
import { executingChange } from '../../idempotency/execution.ts';
import type { ToolResult } from '../call.ts';
import { failureResult } from '../call.ts';
import { approvalNaming } from '../call-naming.ts';
import type { CheckedContent } from '../content-check.ts';
import { executedResult } from '../executed-result.ts';
import type { DispatchDeps } from '../context.ts';
import { concludeApproval } from './conclusion.ts';
import { notifyProgress, notifySettled } from './notice.ts';
import { withApprovalNote } from './note.ts';
import { rejectedFailure } from './results.ts';
import { approvedTool, type ApprovedTool } from './approved-tool.ts';
import { leaseMsFor } from '../lease.ts';
import { settleExpired } from './parked-call.ts';
import { approvalEnvelope, parkedCallRequest, resultEnvelope, settleParkedCall } from '../settle.ts';
import { executeStage } from '../stages/execute.ts';
import { inStageSpan, type CallSpan } from '../../telemetry/stage-span.ts';
import type { SpanContext } from '../../telemetry/trace-context.ts';
import { endToolSpan, startApprovedToolSpan, toolTypeOf } from '../tool-span.ts';
import { validateStage } from '../stages/validate.ts';
import { limitStage } from '../stages/limit.ts';
import { pass, type StageResult } from '../stages/stage.ts';
import type { HeldLimit } from '../../limits/limiter.ts';
import { storedProof } from '../../connections/grant-proof.ts';

/** `result` is absent while the approval still collects approvals (quorum not reached). */
export type DecideOutcome = { ok: true; approval: Approval; result?: ToolResult } | Extract<DecisionOutcome, { ok: false }>;

/**
 * A human's decision on a parked call. Each approver's decision is recorded and audited; the
 * one that completes the quorum runs the call once (its parked record moves to executing by
 * compare-and-set, so a double click or a redelivered webhook finds nothing left to run); a
 * rejection by anyone ends it as `denied`.
 */
export async function decideParkedCall(deps: DispatchDeps, approvalId: string, decision: Decision, env: Readonly<Record<string, string | undefined>>, defer?: (work: Promise<unknown>) => void, trace?: SpanContext): Promise<DecideOutcome> {
  if (!deps.store) return { ok: false, reason: 'not_found' };
  const outcome = await decideApproval(deps.store, approvalId, decision, deps.now());
  if (!outcome.ok) {
    if (outcome.reason === 'expired' && outcome.approval) await settleExpired(deps, outcome.approval, defer);
    return outcome;
  }
  const approval = outcome.approval;
  deps.log('tools.approval.decided', { tenant: approval.tenant, approval_id: approval.id, state: approval.state, by: decision.by, via: decision.via, approvals: approvalsOf(approval).length, quorum: quorumOf(approval) });
  if (approval.state === 'pending') {
    await recordPartialApproval(deps, approval, decision.by);
    await notifyProgress(deps, approval, defer);
    return { ok: true, approval };
  }
  if (approval.state === 'rejected') {
    const result = await settleRejected(deps, approval, decision.by);
    await notifySettled(deps, approval, defer);
    return { ok: true, approval, result };
  }
  const result = await runApprovedCall(deps, approval, decision.by, env, trace);
  return { ok: true, approval: await concludeApproval(deps, approval, 'executed', result, defer), result };
}

/** An approval short of the quorum: audited in the call's thread as it is counted (the record already holds it). */
async function recordPartialApproval(deps: DispatchDeps, approval: Approval, by: string): Promise<void> {
  if (!deps.audit) return;
  try {
    await deps.audit.record({ tenant: approval.tenant, thread_id: approval.thread_id }, [approvalEnvelope(approval, by)]);
  } catch (error) {
    deps.log('tools.approval.audit_failed', { level: 'error', tenant: approval.tenant, approval_id: approval.id, error: (error as Error).message });
  }
}

async function settleRejected(deps: DispatchDeps, approval: Approval, by: string): Promise<ToolResult> {
  const result = failureResult({ call_id: approval.call_id, name: approval.tool }, rejectedFailure(approval), performance.now());
  await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, by), resultEnvelope(approval, result, result.content)], { state: 'parked' });
  return result;
}

/**
 * Finds the definition the call was approved under (approved-tool.ts), starts the parked call
 * (parked → executing, committed with the approval envelope before anything runs), runs that
 * definition, or not (the result says why), then stores and audits the result (executing → completed).
 */
async function runApprovedCall(deps: DispatchDeps, approval: Approval, by: string, env: Readonly<Record<string, string | undefined>>, parent?: SpanContext): Promise<ToolResult> {
  // The call's execute_tool span, with a child per stage that waits (as dispatchCall's); none when tracing is off.
  const traced: CallSpan | undefined = deps.tracer ? { tracer: deps.tracer, span: startApprovedToolSpan(deps.tracer, approval, parent) } : undefined;
  let tool: ApprovedTool | undefined;
  let ran: { result: ToolResult; output: string } | undefined;
  try {
    tool = await approvedTool(deps, approval);
    if (tool.ok) traced?.span.setAttribute('gen_ai.tool.type', toolTypeOf(tool.executor));
    else deps.log('tools.approval.not_run', { level: 'warn', tenant: approval.tenant, approval_id: approval.id, tool: approval.tool, manifest_version: approval.manifest_version, reason: tool.failure.details?.reason });
    ran = await runApproved(deps, approval, tool, by, env, traced);
    return ran.result;
  } finally {
    if (traced) {
      const result = ran?.result ?? failureResult({ call_id: approval.call_id, name: approval.tool }, { code: 'error', message: 'internal error' }, performance.now());
      const trace = { result, output: ran?.output ?? '', raw_arguments: approval.arguments, args: approval.arguments, definition: tool?.ok ? tool.executor.definition : undefined, decision: { decision: 'approved', stage: 'approval' } };
      await endToolSpan(traced.tracer, traced.span, trace).catch(() => traced.span.end());
    }
  }
}

async function runApproved(deps: DispatchDeps, approval: Approval, tool: ApprovedTool, by: string, env: Readonly<Record<string, string | undefined>>, traced: CallSpan | undefined): Promise<{ result: ToolResult; output: string }> {
  const startedAt = performance.now();
  const call = { call_id: approval.call_id, name: approval.tool };
  const timeoutMs = (tool.ok ? tool.executor.definition.timeout_ms : undefined) ?? deps.defaultTimeoutMs;
  const owner = crypto.randomUUID();
  const store = { 'toolgate.store': deps.store!.name };
  const limited = await inStageSpan(traced, 'limit', () => approvedCallLeases(deps, approval, timeoutMs), store);
  if (!limited.ok) {
    const result = failureResult(call, limited.failure, startedAt);
    await settleParkedCall(deps, approval, result, [approvalEnvelope(approval, by), resultEnvelope(approval, result, result.content)], { state: 'parked' });
    return { result, output: result.content };
  }
  try {
    return await runApprovedHoldingLeases(deps, approval, tool, by, env, traced, { owner, timeoutMs, startedAt });
  } finally {
    await deps.limiter?.release(limited.value);
  }
}

/**
 * An approved call meets its tool's concurrency caps when it runs, as a dispatched one does (its
 * window limits were counted when it was parked): approving many parked calls at once runs no
 * more of them at a time than the caps allow; the others end `rate_limited`, nothing run.
 */
async function approvedCallLeases(deps: DispatchDeps, approval: Approval, timeoutMs: number): Promise<StageResult<HeldLimit[]>> {
  if (!deps.limiter?.countsCalls) return pass([]);
  const caller = { tenant: approval.tenant, principal: approval.requested_by };
  return limitStage(deps.limiter, caller, approval.tool, leaseMsFor(timeoutMs, deps.leaseGraceMs), deps.now(), approvalNaming(approval), 'concurrency');
}

async function runApprovedHoldingLeases(
  deps: DispatchDeps,
  approval: Approval,
  tool: ApprovedTool,
  by: string,
  env: Readonly<Record<string, string | undefined>>,
  traced: CallSpan | undefined,
  { owner, timeoutMs, startedAt }: { owner: string; timeoutMs: number; startedAt: number },
): Promise<{ result: ToolResult; output: string }> {
  const call = { call_id: approval.call_id, name: approval.tool };
  const store = { 'toolgate.store': deps.store!.name };
  const started = await inStageSpan(traced, 'begin', () => startApprovedCall(deps, approval, by, owner, timeoutMs), store);
  if (!started.ok) {
    const stored = started.current?.state === 'completed' ? (started.current.data.result as unknown as ToolResult) : undefined;
    const result = stored ?? failureResult(call, { code: 'in_progress', message: `This call of ${approvalNaming(approval).tool} is already running.` }, startedAt);
    return { result, output: result.content };
  }
  deps.events?.({ type: 'tool_call.start', ...call, thread_id: approval.thread_id, tenant: approval.tenant, arguments: approval.arguments });
  const executed = await inStageSpan(traced, 'execute', (span) => executeApproved(approval, tool, env, timeoutMs, startedAt, span?.traceparent));
  const { output, content } = executed;
  const result = withApprovalNote(executed.result, approval);
  const envelopes = [resultEnvelope(approval, result, output, content ? await auditedContent(content) : undefined)];
  await inStageSpan(traced, 'record', () => settleParkedCall(deps, approval, result, envelopes, { state: 'executing', owner }), store);
  deps.events?.({ type: 'tool_call.end', ...call, thread_id: approval.thread_id, tenant: approval.tenant, result, output });
  deps.metrics?.observe(result);
  return { result, output };
}

/** The approved call's start, durable before its side effect: the record says executing (with its deadline), the approval is audited. */
async function startApprovedCall(deps: DispatchDeps, approval: Approval, by: string, owner: string, timeoutMs: number) {
  const start = {
    call_id: approval.call_id,
    principal: approval.requested_by,
    deadline: deps.now() + leaseMsFor(timeoutMs, deps.leaseGraceMs),
    approval_id: approval.id,
    ...(approval.manifest_version ? { manifest_version: approval.manifest_version } : {}),
  };
  const change = executingChange(parkedCallRequest(deps, approval), owner, start, { state: 'parked', owner: approval.id });
  const thread = { tenant: approval.tenant, thread_id: approval.thread_id };
  const outcome = deps.audit ? await deps.audit.record(thread, [approvalEnvelope(approval, by)], { record: change }) : (await deps.store!.commit({ record: change })).record;
  return outcome ?? { ok: false as const, current: undefined };
}

/** The execute and truncate stages for an approved call: the definition it was approved under, validated by that version's schema. */
async function executeApproved(approval: Approval, tool: ApprovedTool, env: Readonly<Record<string, string | undefined>>, timeoutMs: number, startedAt: number, traceparent?: string): Promise<{ result: ToolResult; output: string; content?: CheckedContent }> {
  const call = { call_id: approval.call_id, name: approval.tool };
  const failed = (failure: Parameters<typeof failureResult>[1]) => {
    const result = failureResult(call, failure, startedAt);
    return { result, output: result.content };
  };
  if (!tool.ok) return failed(tool.failure);
  const { executor } = tool;
  const naming = approvalNaming(approval);
  const validated = validateStage(tool.schemas, executor.definition, approval.arguments, undefined, undefined, naming);
  if (!validated.ok) return failed(validated.failure);
  const native = approval.native_tool === undefined ? {} : { native_tool: approval.native_tool };
  // The requester's proof, kept with the approval: a tool acting as the user uses only a grant made with it.
  const proof = storedProof(approval.requested_by_proof);
  const caller = proof ? { connection_caller: { proof } } : {};
  const context = { call_id: approval.call_id, thread_id: approval.thread_id, tenant: approval.tenant, principal: approval.requested_by, env, ...native, ...caller, ...(traceparent ? { traceparent } : {}) };
  const executed = await executeStage(executor, validated.value, context, timeoutMs, naming);
  if (!executed.ok) return failed(executed.failure);
  return { result: executedResult(call, executed.value, executor.definition.output, startedAt), output: executed.value.text, content: executed.value.content };
}
