import { ErrorCode, jsonRpcError, type JsonObject, type JsonRpcRequest } from '../../mcp-wire/json-rpc.ts';
import type { LegacyMethod } from '../legacy.ts';
import { tasksListIssues, taskIdIssues } from '../legacy-params.ts';
import type { McpRequestScope } from '../methods.ts';
import { McpMethodError } from '../method-error.ts';
import { tasksOffered } from '../parking.ts';
import { cancelTask } from './task-cancel.ts';
import { callersTask, deliveredOnce } from './task-access.ts';
import { listTasks, type McpTask } from './task-record.ts';
import { isTerminal, readTaskState, type TaskState } from './task-status.ts';
import { legacyTask, legacyTaskResult } from './task-views.ts';

/**
 * The 2025-11-25 task methods: `tasks/get`, `tasks/result` (the call's result once the task
 * ended; it waits a while for one still working), `tasks/list` (the caller's own tasks) and
 * `tasks/cancel` (withdraws the approval; a task that ended cannot be cancelled: -32602).
 */
export const LEGACY_TASK_METHODS: Readonly<Record<string, LegacyMethod>> = {
  'tasks/get': { issues: taskIdIssues, answer: getTask },
  'tasks/result': { issues: taskIdIssues, answer: taskResult },
  'tasks/list': { issues: tasksListIssues, answer: list },
  'tasks/cancel': { issues: taskIdIssues, answer: cancel },
};

/** How long tasks/result waits for a task still working (the spec has it block; platforms cut requests at about 30 s), and how often it looks. */
const RESULT_WAIT_MS = 25_000;
const RESULT_POLL_MS = 500;
const LIST_PAGE = 20;
const CURSOR = /^\d{1,16}$/;

async function getTask(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  const task = await callersTask(scope, request.params);
  const state = await readTaskState(scope.context.runtime.deps, task, scope.context.defer);
  await deliveredOnce(scope, task, state);
  return legacyTask(task, state);
}

async function taskResult(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  const task = await callersTask(scope, request.params);
  const state = waiting.has(scope) ? await readTaskState(scope.context.runtime.deps, task, scope.context.defer) : await waitForEnd(scope, task);
  if (!isTerminal(state) || !state.result) {
    throw new McpMethodError(jsonRpcError(ErrorCode.InternalError, `Task ${task.id} is still working (${state.message ?? 'waiting'}); call tasks/result again, or poll tasks/get`));
  }
  await deliveredOnce(scope, task, state);
  return legacyTaskResult(task, { ...state, result: state.result });
}

/**
 * The POSTs with a tasks/result already waiting: one waits per POST, so a batch of them cannot
 * turn one request into thousands of store reads; the others answer at once.
 */
const waiting = new WeakSet<McpRequestScope>();

async function waitForEnd(scope: McpRequestScope, task: McpTask): Promise<TaskState> {
  waiting.add(scope);
  const { deps } = scope.context.runtime;
  const deadline = Date.now() + RESULT_WAIT_MS;
  for (;;) {
    const state = await readTaskState(deps, task, scope.context.defer);
    if (isTerminal(state) || Date.now() + RESULT_POLL_MS > deadline) return state;
    await new Promise((resume) => setTimeout(resume, RESULT_POLL_MS));
  }
}

async function list(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  const { runtime, principal } = scope.context;
  if (!tasksOffered(runtime)) throw new McpMethodError(jsonRpcError(ErrorCode.MethodNotFound, 'Method not found: this server keeps no tasks (it runs without a store)'));
  const cursor = request.params?.cursor;
  if (cursor !== undefined && !(typeof cursor === 'string' && CURSOR.test(cursor))) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor: pass back the nextCursor of an earlier tasks/list, unchanged'));
  const page = await listTasks(runtime.deps.store!, principal, { after: cursor === undefined ? undefined : Number(cursor), limit: LIST_PAGE });
  const tasks = await Promise.all(page.tasks.map(async (task) => legacyTask(task, await readTaskState(runtime.deps, task, scope.context.defer))));
  return { tasks, ...(page.next !== undefined ? { nextCursor: String(page.next) } : {}) };
}

async function cancel(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  const task = await callersTask(scope, request.params);
  const outcome = await cancelTask(scope.context.runtime.deps, task, 'legacy', scope.context.defer);
  if (outcome.refused) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, `Cannot cancel task ${task.id}: it already ended (${outcome.state.status}); a task that ended cannot be cancelled`));
  return legacyTask(outcome.task, outcome.state);
}
