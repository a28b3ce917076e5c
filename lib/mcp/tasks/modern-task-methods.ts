import { isPlainObject, type JsonObject, type JsonRpcRequest } from '../../mcp-wire/json-rpc.ts';
import type { McpRequestScope } from '../methods.ts';
import type { ModernMethod } from '../modern.ts';
import { cancelTask } from './task-cancel.ts';
import { callersTask, deliveredOnce, requireTasksExtension, taskIdProblem } from './task-access.ts';
import { readTaskState } from './task-status.ts';
import { modernTask } from './task-views.ts';

/**
 * The Tasks extension's methods (2026-07-28, `io.modelcontextprotocol/tasks`), for clients that
 * declare it on the request: `tasks/get` (the task with its result once completed),
 * `tasks/update` (acknowledged: toolgate's tasks ask the client for nothing yet) and
 * `tasks/cancel` (withdraws the approval; acknowledged either way, as the extension's
 * cooperative cancel is).
 */
export const MODERN_TASK_METHODS: Readonly<Record<string, ModernMethod>> = {
  'tasks/get': { invalid: taskIdProblem, answer: getTask },
  'tasks/update': { invalid: updateProblem, answer: updateTask },
  'tasks/cancel': { invalid: taskIdProblem, answer: cancel },
};

async function getTask(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  requireTasksExtension(request.params);
  const task = await callersTask(scope, request.params);
  const state = await readTaskState(scope.context.runtime.deps, task, scope.context.defer);
  await deliveredOnce(scope, task, state);
  return modernTask(task, state);
}

async function updateTask(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  requireTasksExtension(request.params);
  await callersTask(scope, request.params);
  // No input request is outstanding on a toolgate task, so every response is one to ignore (the spec's rule).
  return {};
}

async function cancel(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  requireTasksExtension(request.params);
  const task = await callersTask(scope, request.params);
  await cancelTask(scope.context.runtime.deps, task, 'modern', scope.context.defer);
  return {};
}

function updateProblem(params: JsonObject | undefined): string | undefined {
  return taskIdProblem(params) ?? (isPlainObject(params?.inputResponses) ? undefined : 'params.inputResponses must be an object (responses keyed as the task\'s inputRequests were)');
}
