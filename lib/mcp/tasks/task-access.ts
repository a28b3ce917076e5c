import { ErrorCode, isPlainObject, jsonRpcError, type JsonObject } from '../../mcp-wire/json-rpc.ts';
import { CLIENT_CAPABILITIES_META_KEY, metaOf } from '../../mcp-wire/envelope.ts';
import type { McpRequestScope } from '../methods.ts';
import { McpMethodError } from '../method-error.ts';
import { tasksOffered } from '../parking.ts';
import { forgetTwin } from '../twin-calls.ts';
import { loadTask, type McpTask } from './task-record.ts';
import { isTerminal, type TaskState } from './task-status.ts';

/** The Tasks extension's identifier (2026-07-28), as clients declare it per request and servers in server/discover. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a modern request's envelope declares the Tasks extension. */
export function declaresTasks(params: unknown): boolean {
  const capabilities = metaOf(params)?.[CLIENT_CAPABILITIES_META_KEY];
  const extensions = isPlainObject(capabilities) ? capabilities.extensions : undefined;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** A 2026-07-28 task method from a client that did not declare the extension on this request: -32021 (the spec's rule). */
export function requireTasksExtension(params: JsonObject | undefined): void {
  if (declaresTasks(params)) return;
  throw new McpMethodError(jsonRpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: declare the extension "${TASKS_EXTENSION}" in this request's _meta clientCapabilities.extensions to use tasks`, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }));
}

/**
 * The task `params.taskId` names, if it belongs to the caller. An unknown, expired, forged or
 * another principal's task id all get the same -32602: a task id is a handle, and asking about
 * one that is not yours tells you nothing (never a 403 that would confirm it exists).
 */
export async function callersTask(scope: McpRequestScope, params: JsonObject | undefined): Promise<McpTask> {
  const { runtime, principal } = scope.context;
  if (!tasksOffered(runtime)) throw new McpMethodError(jsonRpcError(ErrorCode.MethodNotFound, 'Method not found: this server keeps no tasks (it runs without a store)'));
  const id = String(params?.taskId);
  const task = await loadTask(runtime.deps.store!, principal, id);
  if (!task) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, `Failed to retrieve task: task ${JSON.stringify(id.slice(0, 80))} not found (it never existed, it expired, or it is not this client's)`));
  return task;
}

/** A task that reached its end has delivered the call's outcome: identical calls are new calls from now on (twin-calls.ts). */
export async function deliveredOnce(scope: McpRequestScope, task: McpTask, state: TaskState): Promise<void> {
  if (!isTerminal(state) || !task.twin_key) return;
  const { deps } = scope.context.runtime;
  // Bookkeeping: a store failing now must not hide the outcome being delivered.
  await forgetTwin(deps.store!, task.twin_key, task.call_id).catch((error: unknown) => deps.log('tools.mcp.twin_failed', { level: 'warn', task_id: task.id, error: error instanceof Error ? error.message : String(error) }));
}

/** The params check shared by tasks/get, tasks/result and tasks/cancel. */
export function taskIdProblem(params: JsonObject | undefined): string | undefined {
  return typeof params?.taskId === 'string' ? undefined : 'params.taskId must be a string (the id of a task this client was given)';
}
