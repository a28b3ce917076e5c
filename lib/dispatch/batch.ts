import type { ToolCall, ToolResult } from './call.ts';
import { withRequestBudgets, type CallerContext, type DispatchDeps } from './context.ts';
import { dispatchCall } from './pipeline.ts';

/**
 * Results come back in request order with call ids unchanged, whichever mode ran them. The calls
 * share one pattern budget and one validation budget: a batch cannot buy them per call.
 */
export async function dispatchBatch(deps: DispatchDeps, batchCaller: CallerContext, calls: ToolCall[], options: { parallel?: boolean } = {}): Promise<ToolResult[]> {
  const caller = withRequestBudgets(batchCaller);
  if (options.parallel) return Promise.all(calls.map((call) => dispatchCall(deps, caller, call)));
  const results: ToolResult[] = [];
  for (const call of calls) results.push(await dispatchCall(deps, caller, call));
  return results;
}
