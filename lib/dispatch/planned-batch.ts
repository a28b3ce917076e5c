import type { ToolResult } from './call.ts';
import type { CallerContext, DispatchDeps } from './context.ts';
import { dispatchBatch } from './batch.ts';
import type { PlannedCall } from './formats/anthropic-native.ts';

/**
 * Runs the planned calls as one batch and puts the results answered at planning time (a native
 * call's malformed input, bash restart) back in their places: request order, ids unchanged.
 */
export async function dispatchPlanned(deps: DispatchDeps, caller: CallerContext, planned: PlannedCall[], options: { parallel?: boolean } = {}): Promise<ToolResult[]> {
  const calls = planned.flatMap((entry) => ('call' in entry ? [entry.call] : []));
  const results = await dispatchBatch(deps, caller, calls, options);
  let next = 0;
  return planned.map((entry) => ('call' in entry ? results[next++] : entry.result));
}
