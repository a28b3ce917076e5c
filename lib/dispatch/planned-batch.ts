import type { ToolResult } from './call.ts';
import type { CallerContext, DispatchDeps } from './context.ts';
import { dispatchBatch } from './batch.ts';
import type { PlannedCall } from './formats/anthropic-native.ts';
import { dispatchCall } from './pipeline.ts';

/**
 * Runs the planned calls as one batch and puts the results answered at planning time (a native
 * call's malformed input, bash restart) back in their places: request order, ids unchanged. The
 * answered calls go through the pipeline first, which only records them (events, audit) as it
 * does a refused call. A call the batch stopped (a later command of a Responses shell_call) has
 * no result.
 */
export async function dispatchPlanned(deps: DispatchDeps, caller: CallerContext, planned: PlannedCall[], options: { parallel?: boolean } = {}): Promise<ToolResult[]> {
  const answered = new Map<PlannedCall, ToolResult>();
  for (const entry of planned) {
    if (entry.result) answered.set(entry, await dispatchCall(deps, caller, entry.call, { answer: entry.result }));
  }
  const calls = planned.flatMap((entry) => (entry.result ? [] : [entry.call]));
  const results = new Map((await dispatchBatch(deps, caller, calls, options)).map((result) => [result.call_id, result]));
  return planned.flatMap((entry) => answered.get(entry) ?? results.get(entry.call.call_id) ?? []);
}
