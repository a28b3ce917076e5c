import type { ToolResult } from '../dispatch/call.ts';
import type { DispatchDeps } from '../dispatch/context.ts';
import { idempotencyKeyFor } from '../idempotency/keys.ts';
import type { JsonObject } from '../mcp-wire/json-rpc.ts';
import type { Store } from '../stores/store.ts';
import { toCallToolResult } from './call-result.ts';
import type { McpCallIdentity } from './call-identity.ts';
import { loadTask, newTaskId, saveNewTask, type McpTask, type TaskOwner } from './tasks/task-record.ts';
import { readTaskState, type TaskState } from './tasks/task-status.ts';
import { legacyCreateTaskResult, modernTaskHandle, type TaskVocabulary } from './tasks/task-views.ts';
import { attachTwinTask, forgetTwin, rememberTwin } from './twin-calls.ts';
import { askToConfirm, awaitsConfirmation, type ConfirmOptions } from './confirm/confirm-round.ts';

/**
 * What a `tools/call` answers once dispatched: its result, or, for a client that can take one, a
 * task. A 2026-07-28 client declaring the Tasks extension gets a task for a call that waits for
 * approval (and the result itself otherwise); a 2025-11-25 client asking for a task gets one
 * whatever happened (a call that already ended gives a task holding its result). Everyone else
 * gets the result, a waiting call's included. A call waiting for its user's confirmation is
 * first asked through a client that can take the request (`confirm.round`: an `input_required`
 * answer, confirm/confirm-round.ts). On the way, the call's twin pointer is kept
 * (twin-calls.ts): written when a call parks, forgotten once its outcome is delivered.
 */
export async function answerToolCall(deps: DispatchDeps, owner: TaskOwner, identity: McpCallIdentity, result: ToolResult, asked?: TaskVocabulary, confirm?: ConfirmOptions): Promise<JsonObject> {
  const store = deps.store;
  const approvalId = waitingApproval(result);
  // A call waiting for its user's confirmation asks the client first (MRTR), before any task.
  const round = store && approvalId !== undefined && awaitsConfirmation(result) ? confirm?.round : undefined;
  if (store && asked && !round && (approvalId !== undefined || asked === 'legacy')) {
    const { task, state } = await taskFor(deps, store, owner, identity, result, approvalId);
    return asked === 'modern' ? modernTaskHandle(task, state, confirm !== undefined) : legacyCreateTaskResult(task, state);
  }
  // The pointer is bookkeeping: a store failing now must not turn a real outcome into an error.
  if (store && identity.twin) await keepTwin(deps, store, identity, result, approvalId).catch((error: unknown) => deps.log('tools.mcp.twin_failed', { level: 'warn', call_id: identity.call_id, error: error instanceof Error ? error.message : String(error) }));
  // Asking needs a record in the store: without one the call is answered as it stands (its text names the console).
  if (round) return askToConfirm(deps, owner, identity, result, approvalId!, { ...confirm!, round }).catch((error: unknown) => {
    deps.log('tools.mcp.confirm_ask_failed', { level: 'warn', call_id: identity.call_id, error: error instanceof Error ? error.message : String(error) });
    return toCallToolResult(result);
  });
  return toCallToolResult(result);
}

/** The approval a call waits on (parked, or approved and running), if it waits on one. */
function waitingApproval(result: ToolResult): string | undefined {
  if (result.status !== 'pending_approval' && result.status !== 'in_progress') return undefined;
  const id = result.error?.details?.approval_id;
  return typeof id === 'string' ? id : undefined;
}

/** An outcome is delivered when the call no longer waits: a transient store failure delivers nothing. */
const delivers = (result: ToolResult) => !['pending_approval', 'in_progress', 'unavailable', 'rate_limited'].includes(result.status);

async function keepTwin(deps: DispatchDeps, store: Store, identity: McpCallIdentity, result: ToolResult, approvalId: string | undefined): Promise<void> {
  const twin = identity.twin!;
  if (twin.found) {
    if (delivers(result)) await forgetTwin(store, twin.key, identity.call_id);
  } else if (result.status === 'pending_approval' && approvalId !== undefined) {
    await rememberTwin(store, twin.key, { call_id: identity.call_id, approval_id: approvalId }, pointerExpiry(deps, result));
  }
}

/**
 * The task for this call: the one its twin was already given, when there is one (a re-sent
 * parked call gets the same task), else a new one, stored before it is handed out.
 */
async function taskFor(deps: DispatchDeps, store: Store, owner: TaskOwner, identity: McpCallIdentity, result: ToolResult, approvalId: string | undefined): Promise<{ task: McpTask; state: TaskState }> {
  const twin = identity.twin;
  const known = approvalId !== undefined && twin?.found?.task_id ? await loadTask(store, owner, twin.found.task_id) : undefined;
  if (known) return { task: known, state: await readTaskState(deps, known) };
  const now = deps.now();
  const task: McpTask = {
    id: newTaskId(),
    tenant: owner.tenant,
    principal: owner.principal,
    thread_id: identity.thread_id,
    call_id: identity.call_id,
    tool: result.name,
    ...(approvalId !== undefined ? parkedCall(owner, identity, approvalId) : { result }),
    ...(approvalId !== undefined && twin ? { twin_key: twin.key } : {}),
    created_at: new Date(now).toISOString(),
    ttl_ms: (deps.approvals?.ttlMs ?? 0) + deps.idempotencyTtlMs,
  };
  await saveNewTask(store, task, now);
  if (twin && approvalId !== undefined) {
    const pointer = { call_id: identity.call_id, approval_id: approvalId, task_id: task.id };
    await (twin.found ? attachTwinTask(store, twin.key, pointer, pointerExpiry(deps, result)) : rememberTwin(store, twin.key, pointer, pointerExpiry(deps, result)));
  } else if (twin?.found) {
    // The outcome goes out through this task.
    await forgetTwin(store, twin.key, identity.call_id);
  }
  return { task, state: await readTaskState(deps, task) };
}

/** Where a parked call's outcome will be found: its approval, and its record (a parked call's key is always its call key). */
function parkedCall(owner: TaskOwner, identity: McpCallIdentity, approvalId: string): Pick<McpTask, 'approval_id' | 'call_key'> {
  const call_key = idempotencyKeyFor('call', { tenant: owner.tenant, thread_id: identity.thread_id, call_id: identity.call_id, tool: '', args_hash: '' })!;
  return { approval_id: approvalId, call_key };
}

/** A pointer lives as long as the parked record it leads to: the approval's life, then the result's. */
function pointerExpiry(deps: DispatchDeps, result: ToolResult): number {
  const expires = result.error?.details?.expires_at;
  const approvalEnds = typeof expires === 'string' && !Number.isNaN(Date.parse(expires)) ? Date.parse(expires) : deps.now() + (deps.approvals?.ttlMs ?? 0);
  return approvalEnds + deps.idempotencyTtlMs;
}
