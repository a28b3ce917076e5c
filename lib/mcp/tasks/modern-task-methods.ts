import { isPlainObject, type JsonObject, type JsonRpcRequest } from '../../mcp-wire/json-rpc.ts';
import type { McpRequestScope } from '../methods.ts';
import type { ModernMethod } from '../modern.ts';
import { withdrawParkedCall } from '../../dispatch/approvals/withdrawal.ts';
import { confirmAsker, confirmResponse } from '../confirm/confirm-input.ts';
import { cancelTask } from './task-cancel.ts';
import { callersTask, deliveredOnce, requireTasksExtension, taskIdProblem } from './task-access.ts';
import { readTaskState } from './task-status.ts';
import { modernTask } from './task-views.ts';

/**
 * The Tasks extension's methods (2026-07-28, `io.modelcontextprotocol/tasks`), for clients that
 * declare it on the request: `tasks/get` (the task with its result once completed),
 * `tasks/update` (a user declining the confirmation a task asks for withdraws the call) and
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
  const { runtime, consoleOrigin, defer } = scope.context;
  const task = await callersTask(scope, request.params);
  const state = await readTaskState(runtime.deps, task, defer);
  await deliveredOnce(scope, task, state);
  // A call waiting for its user's confirmation asks for it, of a client that can be asked on this request.
  const asker = state.confirming ? confirmAsker(runtime.deps, consoleOrigin, request.params) : undefined;
  return modernTask(task, state, asker && (await asker.inputRequests(state.confirming!)));
}

/**
 * The only input a toolgate task asks for is its user's confirmation, given on the console's
 * page; the client's answer matters only when the user declined or dismissed it: the call is
 * withdrawn then (the task completes, answered as declined). Every other response is ignored
 * (the spec's rule for unknown or answered keys).
 */
async function updateTask(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  requireTasksExtension(request.params);
  const task = await callersTask(scope, request.params);
  const answer = confirmResponse(request.params?.inputResponses);
  if (task.approval_id && (answer === 'decline' || answer === 'cancel')) {
    const { runtime, defer } = scope.context;
    const state = await readTaskState(runtime.deps, task, defer);
    if (state.confirming) await withdrawParkedCall(runtime.deps, task.approval_id, task.principal, defer);
  }
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
