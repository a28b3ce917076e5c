import { groupByNativeItem, type ToolCall, type ToolResult } from './call.ts';
import { withRequestBudgets, type CallerContext, type DispatchDeps } from './context.ts';
import { shellCommandExited } from './formats/responses-output.ts';
import { dispatchCall } from './pipeline.ts';

/**
 * Results come back in request order with call ids unchanged, whichever mode ran them. The calls
 * share one pattern budget and one validation budget: a batch cannot buy them per call.
 *
 * Calls made from one native item (the commands of a Responses shell_call) run one after another
 * even in a parallel batch, and the first of them that does not end `ok` (parked, refused,
 * failed, timed out: see shellCommandExited) stops the rest: a later command never runs before
 * an earlier one. The calls it stopped are not dispatched and have no result.
 */
export async function dispatchBatch(deps: DispatchDeps, batchCaller: CallerContext, calls: ToolCall[], options: { parallel?: boolean } = {}): Promise<ToolResult[]> {
  const caller = withRequestBudgets(batchCaller);
  const runGroup = async (group: ToolCall[]): Promise<ToolResult[]> => {
    const results: ToolResult[] = [];
    for (const call of group) {
      const result = await dispatchCall(deps, caller, call);
      results.push(result);
      if (!letsTheNextRun(call, result)) break;
    }
    return results;
  };
  const groups = groupByNativeItem(calls);
  if (options.parallel) return (await Promise.all(groups.map(runGroup))).flat();
  const results: ToolResult[] = [];
  for (const group of groups) results.push(...(await runGroup(group)));
  return results;
}

/**
 * A shell_call's command must have exited (a timeout stops the rest too), as its whole output
 * says (command_outcome: the tool's output limits may have cut the timeout note or the header
 * from the result the model reads). Any other call must have ended `ok`.
 */
function letsTheNextRun(call: ToolCall, result: ToolResult): boolean {
  return call.native?.type === 'shell_call' ? shellCommandExited(result) : result.status === 'ok';
}
