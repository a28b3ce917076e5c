import { isAbandonedExecution } from '../idempotency/execution.ts';
import type { StateRecord, ThreadRef } from '../stores/store.ts';
import { parkedCallFailure } from './approvals/parked-call.ts';
import { failureResult, type ToolResult } from './call.ts';
import type { DispatchDeps } from './context.ts';
import { settleAbandonedCall } from './indeterminate.ts';

/**
 * What a stored call's record says of it now, as a result: the stored one once it completed; a
 * run whose outcome was lost, settled (once) as `indeterminate`; a parked call's approval state
 * (`pending_approval`, or `in_progress` while the approved call runs); `in_progress` while it runs.
 * Read by whoever asks after a call (GET /v1/calls, a resumed MCP stream), never to re-run it.
 */
export async function storedCallResult(deps: DispatchDeps, key: string, record: StateRecord, thread: ThreadRef, call_id: string, defer?: (work: Promise<unknown>) => void): Promise<ToolResult> {
  if (record.state === 'completed') return record.data.result as unknown as ToolResult;
  if (isAbandonedExecution(record, deps.now())) return settleAbandonedCall(deps, key, record, thread, defer);
  const failure = record.state === 'parked' ? await parkedCallFailure(deps, String(record.data.approval_id), defer) : { code: 'in_progress' as const, message: 'The call is running.' };
  return failureResult({ call_id, name: String(record.data.tool) }, failure, performance.now());
}
