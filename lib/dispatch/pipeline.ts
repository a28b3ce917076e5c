import type { ConnectionUse } from '../connections/connection-access.ts';
import { hashJson } from '../idempotency/canonical-json.ts';
import { requestPatternBudget } from '../patterns/index.ts';
import { failureResult, type CallFailure, type ToolCall, type ToolResult } from './call.ts';
import { callNaming } from './call-naming.ts';
import { withRequestBudgets, type CallerContext, type DispatchDeps } from './context.ts';
import { leaseMsFor } from './lease.ts';
import { executedResult } from './executed-result.ts';
import { withCommandOutcome } from './formats/responses-output.ts';
import { requestPatternBudgetSpent } from './pattern-budget.ts';
import { authorizeStage } from './stages/authorize.ts';
import { beginStage, type TraceBeforeRun } from './stages/begin.ts';
import { claimStage } from './stages/claim.ts';
import { executeStage } from './stages/execute.ts';
import { governStage, grantedExecution, type GrantedDecision } from './stages/govern.ts';
import { limitStage } from './stages/limit.ts';
import { lookupStage } from './stages/lookup.ts';
import { parkStage } from './stages/park.ts';
import { parseStage } from './stages/parse.ts';
import { recordStage } from './stages/record.ts';
import { validateStage } from './stages/validate.ts';
import type { CallTrace } from './trace.ts';
import { idempotencyModeOf } from '../registry/definition.ts';
import type { ToolExecutor } from '../registry/executor.ts';
import { inStageSpan, type CallSpan } from '../telemetry/stage-span.ts';
import { endToolSpan, startToolSpan, toolTypeOf } from './tool-span.ts';

export interface DispatchOptions {
  /** Overrides the tool's own timeout (ToolRouter.execute's third argument). */
  timeoutMs?: number;
  /** The call was answered before the pipeline (a native call's malformed input, bash restart): nothing runs; the answer is recorded (events, audit) like any result. */
  answer?: ToolResult;
}

/**
 * parse → lookup → authorize → validate → govern → claim (or park) → begin → execute → truncate → record.
 * Never throws: every outcome, including a bug in a stage, is a ToolResult.
 */
export async function dispatchCall(deps: DispatchDeps, callCaller: CallerContext, call: ToolCall, options: DispatchOptions = {}): Promise<ToolResult> {
  const startedAt = performance.now();
  const caller = withRequestBudgets(callCaller);
  // One execute_tool span per call, with a child per stage that waits (store, executor); none when tracing is off.
  const traced: CallSpan | undefined = deps.tracer ? { tracer: deps.tracer, span: startToolSpan(deps.tracer, call, caller) } : undefined;
  const base = { call_id: call.call_id, name: call.name, thread_id: caller.thread_id, tenant: caller.tenant };
  deps.events?.({ type: 'tool_call.start', ...base, arguments: call.arguments });
  deps.log('tools.dispatch.started', base);
  let trace: CallTrace;
  try {
    const ran = await runStages(deps, caller, call, startedAt, options, traced);
    trace = ran;
    await inStageSpan(deps.store ? traced : undefined, 'record', () => recordStage(deps, caller, ran), storeAttributes(deps));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log('tools.dispatch.failed', { ...base, stage: 'internal', error: message });
    const result = failureResult(call, { code: 'error', message: `Internal error while dispatching ${callNaming(call).tool}: ${message}` }, startedAt);
    trace = { result, output: result.content, raw_arguments: call.arguments, decision: { decision: 'error', stage: 'internal' } };
  }
  const { result } = trace;
  deps.events?.({ type: 'tool_call.end', ...base, result, output: trace.output });
  deps.metrics?.observe(result);
  deps.log(result.status === 'ok' ? 'tools.dispatch.completed' : 'tools.dispatch.failed', { ...base, status: result.status, duration_ms: result.duration_ms });
  if (traced) await endToolSpan(traced.tracer, traced.span, trace).catch(() => traced.span.end());
  return result;
}

/** The store a stage span waits on, as an attribute. */
const storeAttributes = (deps: DispatchDeps) => (deps.store ? { 'toolgate.store': deps.store.name } : undefined);

async function runStages(deps: DispatchDeps, caller: CallerContext, call: ToolCall, startedAt: number, options: DispatchOptions, traced?: CallSpan): Promise<CallTrace> {
  if (options.answer) return answeredTrace(call, options.answer);
  const stopped = (stage: string, failure: CallFailure, known: Partial<CallTrace> = {}): CallTrace => {
    const result = failureResult(call, failure, startedAt);
    return { raw_arguments: call.arguments, decision: { decision: 'rejected', stage, reason: failure.code }, ...known, result, output: result.content };
  };
  // What the gateway's messages call the tool and its arguments: the model's names (a native tool's).
  const naming = callNaming(call);
  const parsed = parseStage(call.arguments);
  if (!parsed.ok) return stopped('parse', parsed.failure);
  const found = lookupStage(deps.registry, call.name);
  if (!found.ok) return stopped('lookup', found.failure, { args: parsed.value });
  const executor = found.value;
  const definition = executor.definition;
  traced?.span.setAttribute('gen_ai.tool.type', toolTypeOf(executor));
  // Scopes first (issue: "before anything else"): a caller without them learns nothing about the arguments.
  const authorized = authorizeStage(definition, caller.scopes, naming);
  if (!authorized.ok) return stopped('authorize', authorized.failure, { args: parsed.value, definition });
  // Validation and the policy's rules match patterns on the request's shared budget: once earlier
  // calls spent it, this one does not run.
  const budget = caller.patternBudget ?? requestPatternBudget();
  const overBudget = (spentBy: 'earlier calls' | 'this call') => stopped('validate', requestPatternBudgetSpent(naming, spentBy), { args: parsed.value, definition });
  if (budget.spent) return overBudget('earlier calls');
  const validated = validateStage(deps.schemas, definition, parsed.value, budget, caller.validationBudget, naming);
  if (budget.spent) return overBudget('this call');
  if (!validated.ok) return stopped('validate', validated.failure, { args: parsed.value, definition });
  const args = validated.value;
  // Governed before anything else is awaited: the policy's rules run right after validation, so
  // each call of a parallel batch finishes both before the next starts, and the calls that ran
  // before the request's budget ran out keep their decisions.
  const governed = await governStage(deps.governor, { definition, args, principal: caller.principal, claims: caller.claims, now: deps.now(), patternBudget: budget }, naming);
  // The arguments hash keys idempotency and audit; nothing to hash for without a store.
  const args_hash = deps.store ? await hashJson(args) : undefined;
  const known = { definition, args, args_hash };
  deps.log('tools.dispatch.decision', { call_id: call.call_id, tool: call.name, tenant: caller.tenant, decision: governed.ok ? governed.value.action : 'deny' });
  if (!governed.ok) {
    const trace = stopped('govern', governed.failure, known);
    return { ...trace, decision: { decision: 'deny', stage: 'govern', reason: String(governed.failure.details?.reason ?? '') } };
  }
  const decision = { decision: governed.value.action, stage: 'govern', reason: governed.value.reason };

  const timeoutMs = options.timeoutMs ?? definition.timeout_ms ?? deps.defaultTimeoutMs;
  // A claim that touches no store (no store, or idempotency "none") gets no span of its own.
  const claimTraced = deps.store && idempotencyModeOf(definition) !== 'none' ? traced : undefined;
  const verdict = governed.value;
  const claimed =
    verdict.action === 'review' || verdict.action === 'confirm'
      ? await inStageSpan(traced, 'park', async () => parkStage(deps, caller, call, definition, args, args_hash ?? (await hashJson(args)), verdict), storeAttributes(deps))
      : await inStageSpan(claimTraced, 'claim', () => claimStage(deps, caller, call.call_id, definition, args, args_hash, timeoutMs, naming), storeAttributes(deps));
  if (!claimed.ok) return { ...stopped('claim', claimed.failure, known), decision };
  const { claim, replay, head } = claimed.value;
  if (replay) return { ...known, raw_arguments: call.arguments, decision, head, result: { ...replay, call_id: call.call_id }, output: replay.content };

  const trace: TraceBeforeRun = { ...known, raw_arguments: call.arguments, decision, claim, head };
  if (!deps.limiter?.countsCalls) return runClaimed(deps, caller, call, executor, trace, governed.value, timeoutMs, startedAt, traced);
  const limited = await inStageSpan(traced, 'limit', () => limitStage(deps.limiter!, caller, definition.name, leaseMsFor(timeoutMs, deps.leaseGraceMs), deps.now(), naming), storeAttributes(deps));
  // Refused: the claim is given back (record stage), so the same call may run once the limit allows.
  if (!limited.ok) return { ...stopped('limit', limited.failure, known), decision: { decision: 'rejected', stage: 'limit', reason: 'rate_limited' }, claim, head };
  try {
    return await runClaimed(deps, caller, call, executor, trace, governed.value, timeoutMs, startedAt, traced);
  } finally {
    // Every ending (result, error, timeout, a thrown bug) ends the call's concurrency leases; a crash leaves them to expire.
    await deps.limiter.release(limited.value);
  }
}

/** begin → execute → truncate, for a call that holds its claim and its limits. */
async function runClaimed(
  deps: DispatchDeps,
  caller: CallerContext,
  call: ToolCall,
  executor: ToolExecutor,
  claimed: TraceBeforeRun,
  verdict: GrantedDecision,
  timeoutMs: number,
  startedAt: number,
  traced?: CallSpan,
): Promise<CallTrace> {
  const definition = executor.definition;
  const naming = callNaming(call);
  const args = claimed.args ?? {};
  let trace = claimed;
  // A side effect starts only once its start is durable (reads may simply run again after a crash).
  if (definition.tier !== 'read') {
    const before = trace;
    const begun = await inStageSpan(deps.store ? traced : undefined, 'begin', () => beginStage(deps, caller, call, before, deps.now() + leaseMsFor(timeoutMs, deps.leaseGraceMs)), storeAttributes(deps));
    trace = { ...trace, started: begun.started };
    if (begun.failure) {
      const result = failureResult(call, begun.failure, startedAt);
      return { ...trace, result, output: result.content };
    }
  }
  const connections_used: ConnectionUse[] = [];
  const context = {
    connections_used,
    call_id: call.call_id,
    thread_id: caller.thread_id,
    tenant: caller.tenant,
    principal: caller.principal,
    env: caller.env,
    ...caller.relay,
    ...(caller.connect ? { connection_caller: caller.connect } : {}),
    log: deps.log,
    ...grantedExecution(verdict),
    ...nativeTool(call),
    caller: { scopes: caller.scopes, tool_format: caller.tool_format ?? 'toolgate' },
  };
  caller.onRun?.({ record_key: trace.claim?.request.key });
  const executed = await inStageSpan(traced, 'execute', async (span) => {
    const outcome = await executeStage(executor, args, span ? { ...context, traceparent: span.traceparent } : context, timeoutMs, naming);
    if (!outcome.ok) span?.setAttribute('error.type', outcome.failure.code).setError(outcome.failure.code);
    return outcome;
  });
  if (connections_used.length > 0) trace = { ...trace, connections: connections_used };
  if (!executed.ok) {
    const result = failureResult(call, executed.failure, startedAt);
    return { ...trace, result, output: result.content };
  }
  // A shell_call command's outcome comes from its whole output, before the limits cut it.
  const result = withCommandOutcome(call, executedResult(call, executed.value, definition.output, startedAt), executed.value.text);
  return { ...trace, result, output: executed.value.text, ...(executed.value.content ? { output_content: executed.value.content } : {}) };
}

/** The native tool a call came from, for the executor's messages (ToolExecutionContext.native_tool). */
function nativeTool(call: Pick<ToolCall, 'native'>): { native_tool?: string } {
  return call.native ? { native_tool: call.native.tool } : {};
}

/** A call answered at planning: its decision names the planning stage, as a refused call's names the stage that stopped it. */
function answeredTrace(call: ToolCall, answer: ToolResult): CallTrace {
  const decision = answer.error ? { decision: 'rejected', stage: 'plan', reason: answer.error.code } : { decision: 'answered', stage: 'plan' };
  return { result: answer, output: answer.content, raw_arguments: call.arguments, decision };
}
