import { completeIdempotencyKey, releaseIdempotencyKey } from '../idempotency/claim.ts';
import { truncateOutput } from '../tools/truncate.ts';
import { elapsedMs, failureResult, type CallFailure, type ToolCall, type ToolResult } from './call.ts';
import type { CallerContext, DispatchDeps } from './context.ts';
import { authorizeStage } from './stages/authorize.ts';
import { claimStage, type HeldClaim } from './stages/claim.ts';
import { executeStage } from './stages/execute.ts';
import { governStage } from './stages/govern.ts';
import { lookupStage } from './stages/lookup.ts';
import { parseStage } from './stages/parse.ts';
import { validateStage } from './stages/validate.ts';

export interface DispatchOptions {
  /** Overrides the tool's own timeout (ToolRouter.execute's third argument). */
  timeoutMs?: number;
}

interface Finished {
  result: ToolResult;
  /** The full output (or error message), for the end event and audit. */
  output: string;
}

const failed = (call: ToolCall, failure: CallFailure, startedAt: number): Finished => {
  const result = failureResult(call, failure, startedAt);
  return { result, output: result.content };
};

/**
 * parse → lookup → validate → authorize → govern → claim → execute → truncate → record.
 * Never throws: every outcome, including a bug in a stage, is a ToolResult.
 */
export async function dispatchCall(deps: DispatchDeps, caller: CallerContext, call: ToolCall, options: DispatchOptions = {}): Promise<ToolResult> {
  const startedAt = performance.now();
  const base = { call_id: call.call_id, name: call.name, thread_id: caller.thread_id, tenant: caller.tenant };
  deps.events?.({ type: 'tool_call.start', ...base, arguments: call.arguments });
  deps.log('tools.dispatch.started', base);
  let finished: Finished;
  try {
    finished = await runStages(deps, caller, call, startedAt, options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log('tools.dispatch.failed', { ...base, stage: 'internal', error: message });
    finished = failed(call, { code: 'error', message: `Internal error while dispatching \`${call.name}\`: ${message}` }, startedAt);
  }
  deps.events?.({ type: 'tool_call.end', ...base, result: finished.result, output: finished.output });
  const { status, duration_ms } = finished.result;
  deps.log(status === 'ok' ? 'tools.dispatch.completed' : 'tools.dispatch.failed', { ...base, status, duration_ms });
  return finished.result;
}

async function runStages(deps: DispatchDeps, caller: CallerContext, call: ToolCall, startedAt: number, options: DispatchOptions): Promise<Finished> {
  const parsed = parseStage(call.arguments);
  if (!parsed.ok) return failed(call, parsed.failure, startedAt);
  const found = lookupStage(deps.registry, call.name);
  if (!found.ok) return failed(call, found.failure, startedAt);
  const executor = found.value;
  const definition = executor.definition;
  const validated = validateStage(deps.schemas, definition, parsed.value);
  if (!validated.ok) return failed(call, validated.failure, startedAt);
  const args = validated.value;
  const authorized = authorizeStage(definition, caller.scopes);
  if (!authorized.ok) return failed(call, authorized.failure, startedAt);
  const governed = await governStage(deps.governor, { definition, args, principal: caller.principal });
  deps.log('tools.dispatch.decision', { call_id: call.call_id, tool: call.name, tenant: caller.tenant, decision: governed.ok ? 'grant' : governed.failure.code });
  if (!governed.ok) return failed(call, governed.failure, startedAt);

  const timeoutMs = options.timeoutMs ?? definition.timeout_ms ?? deps.defaultTimeoutMs;
  const claimed = await claimStage(deps, caller, call.call_id, definition, args, timeoutMs);
  if (!claimed.ok) return failed(call, claimed.failure, startedAt);
  if (claimed.value.replay) return { result: { ...claimed.value.replay, call_id: call.call_id }, output: claimed.value.replay.content };

  const executed = await executeStage(executor, args, { call_id: call.call_id, thread_id: caller.thread_id, tenant: caller.tenant, principal: caller.principal, env: caller.env }, timeoutMs);
  const finished: Finished = executed.ok
    ? { result: okResult(call, executed.value, definition.output, startedAt), output: executed.value }
    : failed(call, executed.failure, startedAt);
  await recordClaim(deps, claimed.value.claim, finished.result);
  return finished;
}

function okResult(call: ToolCall, output: string, limits: Parameters<typeof truncateOutput>[1], startedAt: number): ToolResult {
  const { content, truncated } = truncateOutput(output, limits);
  return { call_id: call.call_id, name: call.name, status: 'ok', is_error: false, content, truncated, duration_ms: elapsedMs(startedAt) };
}

/**
 * Stores the result the model saw under the claim, so a retry replays it. An `unavailable`
 * result means the tool never ran (its environment was unreachable): the claim is released.
 */
async function recordClaim(deps: DispatchDeps, claim: HeldClaim | undefined, result: ToolResult): Promise<void> {
  if (!claim || !deps.store) return;
  try {
    if (result.status === 'unavailable') await releaseIdempotencyKey(deps.store, claim.request.key, claim.owner);
    else if (!(await completeIdempotencyKey(deps.store, { ...claim.request, now: deps.now() }, claim.owner, result))) {
      deps.log('tools.dispatch.failed', { stage: 'record', call_id: result.call_id, reason: 'idempotency lease lost before completion' });
    }
  } catch (error) {
    deps.log('tools.dispatch.failed', { stage: 'record', call_id: result.call_id, store: deps.store.name, error: (error as Error).message });
  }
}
