import { isJsonObject, type JsonObject } from '../json.ts';
import type { ExchangeHooks, McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';
import { pause } from './pause.ts';

/** How often to poll when the upstream suggests nothing, and the bounds on what it may suggest. */
const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
/** How long the notice that toolgate no longer waits for a task may take. */
const CANCEL_MS = 5_000;

interface UpstreamTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}

/** Statuses after which `tasks/result` holds the outcome (2025-11-25 tasks). */
const FINISHED = new Set(['completed', 'failed']);

function readTask(value: unknown, what: string): UpstreamTask {
  if (!isJsonObject(value) || typeof value.taskId !== 'string' || value.taskId === '' || typeof value.status !== 'string') {
    throw new BrokenAnswerError(`its ${what} is not a task (no taskId and status)`);
  }
  return {
    taskId: value.taskId,
    status: value.status,
    ...(typeof value.statusMessage === 'string' ? { statusMessage: value.statusMessage } : {}),
    ...(typeof value.pollInterval === 'number' && Number.isFinite(value.pollInterval) ? { pollInterval: value.pollInterval } : {}),
  };
}

const pollDelay = (task: UpstreamTask) => Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS));

/**
 * The outcome of a task-augmented `tools/call` (2025-11-25 tasks): polls `tasks/get` at the
 * upstream's `pollInterval` (bounded) until the task finishes or needs input, then fetches
 * `tasks/result` (whose stream carries any request the task makes of the client). When the
 * call's signal aborts (its timeout), the task is cancelled upstream.
 */
export async function awaitUpstreamTask(connection: McpConnection, created: JsonObject, signal: AbortSignal, hooks: ExchangeHooks): Promise<JsonObject> {
  let task = readTask(created.task, 'answer to a task-augmented tools/call');
  const { taskId } = task;
  try {
    while (!FINISHED.has(task.status) && task.status !== 'input_required') {
      if (task.status === 'cancelled') throw new BrokenAnswerError(`its task ${taskId} was cancelled${task.statusMessage ? ` (${task.statusMessage})` : ''}`);
      await pause(pollDelay(task), signal);
      task = readTask(await connection.request('tasks/get', { taskId }, signal, hooks), 'tasks/get answer');
    }
    return await connection.request('tasks/result', { taskId }, signal, hooks);
  } catch (error) {
    if (signal.aborted) await connection.request('tasks/cancel', { taskId }, AbortSignal.timeout(CANCEL_MS)).catch(() => {});
    throw error;
  }
}
