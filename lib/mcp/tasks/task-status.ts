import { failureResult, type CallFailure, type ToolResult } from '../../dispatch/call.ts';
import type { DispatchDeps } from '../../dispatch/context.ts';
import { parkedCallState } from '../../dispatch/approvals/parked-call.ts';
import { CONFIRM_PAGE_WORDS, withdrawnFailure } from '../../dispatch/approvals/results.ts';
import type { Approval } from '../../governance/approval.ts';
import { approvalsOf, isConfirm, loadApproval, quorumOf } from '../../governance/approvals.ts';
import { ownedBy } from '../../idempotency/record-owner.ts';
import type { McpTask } from './task-record.ts';

/**
 * A task's status, read from what it points at (no writes on a poll, beyond settling an
 * approval found expired, as a re-sent call would):
 * - the approval pending, or approved and the call running: `working`;
 * - the call's record holding its outcome (run, rejected, expired, interrupted): `completed`
 *   with that result, an error result included (a tool outcome, not a protocol failure);
 * - withdrawn, or a cancel accepted: `cancelled`, with a result saying so (a confirm call its
 *   user declined through the client: `completed`, with the result saying they declined).
 */
export interface TaskState {
  status: 'working' | 'completed' | 'cancelled';
  /** The task's statusMessage. */
  message?: string;
  /** Set while the call waits for its requester's own confirmation (a confirm approval): a client that can be asked is (task-views.ts). */
  confirming?: Approval;
  /** The call's result (completed), or one saying why there is none (cancelled). */
  result?: ToolResult;
  updated_at: string;
}

export const isTerminal = (state: TaskState) => state.status !== 'working';

export async function readTaskState(deps: DispatchDeps, task: McpTask, defer?: (work: Promise<unknown>) => void): Promise<TaskState> {
  const call = { call_id: task.call_id, name: task.tool };
  const ended = (failure: CallFailure, updated_at: string): TaskState => ({ status: 'completed', result: failureResult(call, failure, performance.now()), updated_at });
  if (task.cancelled_at) return cancelledState(task, task.cancel_note ?? 'The task was cancelled.', task.cancelled_at);
  if (task.result) return { status: 'completed', result: task.result, updated_at: task.created_at };
  const approval = task.approval_id && deps.store ? await loadApproval(deps.store, task.approval_id, deps.now()) : undefined;
  if (!approval) return ended({ code: 'error', message: `The approval for this call of \`${task.tool}\` is gone, so its outcome is unknown; check GET /v1/calls/${task.call_id} before calling it again.` }, task.created_at);
  const updated_at = lastChange(approval);
  // A confirm call the user declined through the client ended with that answer; any other withdrawal cancelled the call.
  if (approval.state === 'withdrawn') return isConfirm(approval) ? ended(withdrawnFailure(approval), updated_at) : cancelledState(task, withdrawnFailure(approval).message, updated_at);
  const stored = task.call_key ? await deps.store!.get(task.call_key) : undefined;
  // Only the task's principal's record is its call's: once that record is gone, another principal may hold the key.
  const record = stored && ownedBy(stored, task.principal) ? stored : undefined;
  if (record?.state === 'completed') return { status: 'completed', result: record.data.result as unknown as ToolResult, updated_at };
  // The call's record outlived by its task: the approval keeps the outcome's excerpt.
  if (!record && approval.result && (approval.state === 'executed' || approval.state === 'interrupted')) return { status: 'completed', result: keptOutcome(task, approval.result), updated_at };
  const failure = await parkedCallState(deps, approval, defer);
  if (failure.code === 'pending_approval') return { status: 'working', message: waitingMessage(approval), updated_at, ...(isConfirm(approval) ? { confirming: approval } : {}) };
  if (failure.code === 'in_progress') return { status: 'working', message: failure.message, updated_at };
  return ended(failure, updated_at);
}

function keptOutcome(task: McpTask, kept: NonNullable<Approval['result']>): ToolResult {
  const content = `${kept.content}\n[the call's full result is no longer stored; this is its approval's excerpt]`;
  const status = kept.status as ToolResult['status'];
  const error = kept.is_error && status !== 'ok' ? { error: { code: status, message: content } } : {};
  return { call_id: task.call_id, name: task.tool, status, is_error: kept.is_error, content, truncated: true, duration_ms: 0, ...error };
}

function cancelledState(task: McpTask, message: string, updated_at: string): TaskState {
  const result = failureResult({ call_id: task.call_id, name: task.tool }, { code: 'denied', message, details: { task_id: task.id, cancelled: true } }, performance.now());
  return { status: 'cancelled', message, result, updated_at };
}

function waitingMessage(approval: Approval): string {
  if (isConfirm(approval)) return `Waiting for the user to confirm \`${approval.tool}\` in ${CONFIRM_PAGE_WORDS} (approval ${approval.id}, expires ${approval.expires_at}); toolgate runs the call once it is confirmed.`;
  return `Waiting for a human's approval of \`${approval.tool}\` (approval ${approval.id}, ${approvalsOf(approval).length} of ${quorumOf(approval)} approvals, expires ${approval.expires_at}); toolgate runs the call once it is approved.`;
}

/** When the approval last changed: its end, its latest decision, or its making. */
function lastChange(approval: Approval): string {
  return approval.decided_at ?? approval.decisions?.at(-1)?.at ?? approval.created_at;
}
