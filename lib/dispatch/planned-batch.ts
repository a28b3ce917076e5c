import type { ToolResult } from './call.ts';
import type { CallerContext, DispatchDeps } from './context.ts';
import { dispatchBatch } from './batch.ts';
import type { PlannedCall } from './formats/anthropic-native.ts';

/**
 * Runs the planned calls as one batch and puts the results answered at planning time (a native
 * call's malformed input, bash restart) back in their places: request order, ids unchanged. A
 * call the batch stopped (a later command of a Responses shell_call) has no result.
 */
export async function dispatchPlanned(deps: DispatchDeps, caller: CallerContext, planned: PlannedCall[], options: { parallel?: boolean } = {}): Promise<ToolResult[]> {
  const calls = planned.flatMap((entry) => ('call' in entry ? [entry.call] : []));
  const results = new Map((await dispatchBatch(deps, caller, calls, options)).map((result) => [result.call_id, result]));
  return planned.flatMap((entry) => ('call' in entry ? (results.get(entry.call.call_id) ?? []) : [entry.result]));
}
