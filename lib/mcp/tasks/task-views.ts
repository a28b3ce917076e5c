import { RELATED_TASK_META_KEY, type JsonObject } from '../../mcp-wire/json-rpc.ts';
import { toCallToolResult } from '../call-result.ts';
import type { McpTask } from './task-record.ts';
import type { TaskState } from './task-status.ts';

/**
 * A task as each vocabulary shows it: the Tasks extension of 2026-07-28 (`ttlMs`,
 * `pollIntervalMs`, the result inlined once completed) and the 2025-11-25 tasks (`ttl`,
 * `pollInterval`, the result fetched by tasks/result).
 */

/** Which vocabulary a client takes tasks in: the 2026-07-28 extension's (`modern`) or 2025-11-25's (`legacy`). */
export type TaskVocabulary = 'modern' | 'legacy';

/** Approvals take minutes: polling more often than this only costs store reads. */
export const TASK_POLL_INTERVAL_MS = 5000;

/** The `_meta` key a 2025-11-25 CreateTaskResult may carry: text for the model while the task runs. */
export const MODEL_IMMEDIATE_RESPONSE_META_KEY = 'io.modelcontextprotocol/model-immediate-response';

function common(task: McpTask, state: TaskState) {
  return { taskId: task.id, status: state.status, ...(state.message !== undefined ? { statusMessage: state.message } : {}), createdAt: task.created_at, lastUpdatedAt: state.updated_at };
}

/** 2026-07-28 `tasks/get`: the DetailedTask (a completed one carries the call's result). */
export function modernTask(task: McpTask, state: TaskState): JsonObject {
  const result = state.status === 'completed' && state.result ? { result: toCallToolResult(state.result) } : {};
  return { ...common(task, state), ttlMs: task.ttl_ms, pollIntervalMs: TASK_POLL_INTERVAL_MS, ...result };
}

/** 2026-07-28 `tools/call` answered with a task: the handle (CreateTaskResult, flat). */
export function modernTaskHandle(task: McpTask, state: TaskState): JsonObject {
  return { resultType: 'task', ...common(task, state), ttlMs: task.ttl_ms, pollIntervalMs: TASK_POLL_INTERVAL_MS };
}

/** 2025-11-25 `tasks/get`, `tasks/list` entries and `tasks/cancel`: the Task. */
export function legacyTask(task: McpTask, state: TaskState): JsonObject {
  return { ...common(task, state), ttl: task.ttl_ms, pollInterval: TASK_POLL_INTERVAL_MS };
}

/** 2025-11-25 task-augmented `tools/call`: the CreateTaskResult, with the status as text the host may hand the model meanwhile. */
export function legacyCreateTaskResult(task: McpTask, state: TaskState): JsonObject {
  const immediate = state.status === 'working' && state.message ? { _meta: { [MODEL_IMMEDIATE_RESPONSE_META_KEY]: state.message } } : {};
  return { task: legacyTask(task, state), ...immediate };
}

/** 2025-11-25 `tasks/result` of a task that ended: what the call answers, tied to its task. */
export function legacyTaskResult(task: McpTask, state: TaskState & { result: NonNullable<TaskState['result']> }): JsonObject {
  const result = toCallToolResult(state.result);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: task.id } } };
}
