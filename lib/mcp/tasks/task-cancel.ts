import type { EnvelopeDraft } from '../../audit/envelope.ts';
import type { DispatchDeps } from '../../dispatch/context.ts';
import { withdrawParkedCall } from '../../dispatch/approvals/withdrawal.ts';
import { withdrawnFailure } from '../../dispatch/approvals/results.ts';
import { forgetTwin } from '../twin-calls.ts';
import { markTaskCancelled, type McpTask } from './task-record.ts';
import { isTerminal, readTaskState, type TaskState } from './task-status.ts';
import type { TaskVocabulary } from './task-views.ts';

export interface CancelOutcome {
  task: McpTask;
  state: TaskState;
  /** Set when the task had already ended: nothing was cancelled. */
  refused?: 'terminal';
}

type Defer = (work: Promise<unknown>) => void;

/**
 * `tasks/cancel`: withdraws the parked call's approval (the requester's to withdraw, by
 * compare-and-set like a decision, audited, the Slack message updated; the call never runs). A
 * task that already ended is left as it is. A cancel that comes after an approval cannot stop
 * the call: it is audited, and then the 2026 task goes on to show the call's outcome (the
 * extension's cancel is cooperative) while the 2025 one reads cancelled from now on (that
 * vocabulary's rule), its result not handed out through it.
 */
export async function cancelTask(deps: DispatchDeps, task: McpTask, vocabulary: TaskVocabulary, defer?: Defer): Promise<CancelOutcome> {
  const store = deps.store!;
  const before = await readTaskState(deps, task, defer);
  if (isTerminal(before)) return { task, state: before, refused: 'terminal' };
  if (task.approval_id) {
    const withdrawal = await withdrawParkedCall(deps, task.approval_id, task.principal, defer);
    if (withdrawal.ok) return cancelled(deps, await markTaskCancelled(store, task, withdrawnFailure(withdrawal.approval).message, deps.now()), defer);
    // Decided (or expired) meanwhile: an ended task stays as it ended.
    const now = await readTaskState(deps, task, defer);
    if (isTerminal(now)) return { task, state: now, refused: 'terminal' };
    await auditLateCancel(deps, task, withdrawal.reason === 'not_requester' ? 'the approval is for another principal\'s call' : 'the call was already approved');
  }
  if (vocabulary === 'modern') return { task, state: await readTaskState(deps, task, defer) };
  const note = `Cancelled after the call of \`${task.tool}\` was approved: it was already running, so it runs to its end and its outcome is recorded (GET /v1/calls/${task.call_id}), but this task does not return it.`;
  return cancelled(deps, await markTaskCancelled(store, task, note, deps.now()), defer);
}

/** The task reads cancelled; identical calls are new calls again (the client gave this one up). */
async function cancelled(deps: DispatchDeps, task: McpTask, defer?: Defer): Promise<CancelOutcome> {
  if (task.twin_key) await forgetTwin(deps.store!, task.twin_key, task.call_id);
  return { task, state: await readTaskState(deps, task, defer) };
}

/** A cancel that could not withdraw anything is still on the record, in the call's thread. */
async function auditLateCancel(deps: DispatchDeps, task: McpTask, reason: string): Promise<void> {
  deps.log('tools.mcp.task_cancel_late', { tenant: task.tenant, task_id: task.id, call_id: task.call_id, approval_id: task.approval_id });
  if (!deps.audit) return;
  const draft: EnvelopeDraft = {
    type: 'tool.call.cancel',
    call_id: task.call_id,
    tool: task.tool,
    principal: task.principal,
    args_hash: null,
    data: { task_id: task.id, via: 'mcp', ...(task.approval_id ? { approval_id: task.approval_id } : {}), outcome: 'not_withdrawn', reason },
  };
  await deps.audit.record({ tenant: task.tenant, thread_id: task.thread_id }, [draft]);
}
