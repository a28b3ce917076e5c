import type { ToolResult } from '../../dispatch/call.ts';
import { toHex } from '../../crypto/sha256.ts';
import { storableResult } from '../../idempotency/stored-result.ts';
import type { JsonObject } from '../../registry/json.ts';
import { checkPageLimit } from '../../stores/page-limit.ts';
import type { Store } from '../../stores/store.ts';

/**
 * An MCP task: the handle a task-capable client holds for a `tools/call`, above all one parked
 * for approval. The record points at the call (and its approval); its status is read from them
 * when asked (task-status.ts), so nothing writes to a task while it waits. A task id is a bearer
 * handle: 128 random bits, bound to the tenant and the principal that made the call; anyone else
 * asking about it hears that it does not exist.
 */
export interface McpTask {
  id: string;
  tenant: string;
  principal: string;
  thread_id: string;
  call_id: string;
  tool: string;
  /** The parked call's approval and record, for a task made for a parked call. */
  approval_id?: string;
  call_key?: string;
  /** The call's twin pointer (twin-calls.ts): forgotten once the task delivered its outcome. */
  twin_key?: string;
  /** A call that ended before its task was made (a 2025-11-25 client asked for a task anyway): its result, kept here. */
  result?: ToolResult;
  created_at: string;
  ttl_ms: number;
  /** When a cancel was accepted: the task stays cancelled from then on, however the call ends. */
  cancelled_at?: string;
  /** Why it was cancelled, for the task's status message. */
  cancel_note?: string;
}

/** Who asks about a task: it exists only for the tenant and principal that made it. */
export interface TaskOwner {
  tenant: string;
  principal: string;
}

export const TASK_ID = /^tgt_[0-9a-f]{32}$/;

/** How many of the owner's index entries a new task looks at to drop expired ones. */
const PRUNE_BATCH = 10;

const taskKey = (tenant: string, id: string) => `mcp-task/${encodeURIComponent(tenant)}/${id}`;
const taskIndex = (owner: TaskOwner) => `mcp-tasks/${encodeURIComponent(owner.tenant)}/${encodeURIComponent(owner.principal)}`;

export function newTaskId(): string {
  return `tgt_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

export const taskExpiresAt = (task: McpTask) => Date.parse(task.created_at) + task.ttl_ms;

function recordOf(task: McpTask) {
  const data = task.result ? { ...task, result: storableResult(task.result) } : task;
  return { state: 'task', owner: task.principal, expires_at: taskExpiresAt(task), data: data as unknown as JsonObject };
}

/**
 * Stores a new task, durably, before its id is handed out (a tasks/get right after must find
 * it), and lists it under its owner; the owner's expired entries are dropped on the way, so the
 * index holds about as many entries as there are live tasks.
 */
export async function saveNewTask(store: Store, task: McpTask, now: number): Promise<void> {
  const outcome = await store.claim(taskKey(task.tenant, task.id), recordOf(task));
  if (!outcome.claimed) throw new Error(`task id ${task.id} already exists`);
  const index = taskIndex(task);
  // Scored by expiry, with a random tail so that no two share a score (listing pages on scores).
  await store.addToIndex(index, task.id, taskExpiresAt(task) * 1000 + Math.floor(Math.random() * 1000));
  const oldest = await store.listIndex(index, { limit: PRUNE_BATCH });
  await Promise.all(oldest.filter((entry) => entry.score < now * 1000).map((entry) => store.removeFromIndex(index, entry.member)));
}

/** The task, if it exists and belongs to `owner`; a malformed, unknown, expired or foreign id is all the same: none. */
export async function loadTask(store: Store, owner: TaskOwner, id: string): Promise<McpTask | undefined> {
  if (!TASK_ID.test(id)) return undefined;
  const record = await store.get(taskKey(owner.tenant, id));
  const task = record?.data as unknown as McpTask | undefined;
  return task && task.tenant === owner.tenant && task.principal === owner.principal ? task : undefined;
}

/** Records that a cancel was accepted (the task reads as cancelled from now on). */
export async function markTaskCancelled(store: Store, task: McpTask, note: string, now: number): Promise<McpTask> {
  const cancelled: McpTask = { ...task, cancelled_at: new Date(now).toISOString(), cancel_note: note };
  await store.put(taskKey(task.tenant, task.id), recordOf(cancelled));
  return cancelled;
}

/** The owner's live tasks, soonest to expire first; `after` (an earlier page's `next`) pages on. */
export async function listTasks(store: Store, owner: TaskOwner, page: { after?: number; limit: number }): Promise<{ tasks: McpTask[]; next?: number }> {
  checkPageLimit(page.limit, 'listTasks');
  const entries = await store.listIndex(taskIndex(owner), { after_score: page.after, limit: page.limit });
  const loaded = await Promise.all(entries.map((entry) => loadTask(store, owner, entry.member)));
  const tasks = loaded.filter((task): task is McpTask => task !== undefined);
  return { tasks, ...(entries.length === page.limit ? { next: entries[entries.length - 1].score } : {}) };
}
