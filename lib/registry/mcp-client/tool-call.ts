import { isJsonObject, type JsonObject } from '../json.ts';
import type { ExchangeHooks, McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';
import { awaitUpstreamTask } from './upstream-tasks.ts';
import { cannotRelayMessage, type AskClient } from './upstream-requests.ts';

export interface ToolCallOptions {
  signal: AbortSignal;
  hooks: ExchangeHooks;
  /** `params._meta` of the call (traceparent, progressToken); the modern envelope is added to it. */
  meta?: JsonObject;
  /** Call as a task (2025-11-25 tasks: the tool's `execution.taskSupport` is "required"), kept upstream at most this long. */
  taskTtlMs?: number;
  /** Relays a modern upstream's input requests (Multi Round-Trip Requests) to the caller's client. */
  ask?: AskClient;
}

/** An upstream that needs something of the caller's client toolgate cannot get for it here. */
export class InputRequiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputRequiredError';
  }
}

/** Rounds of input a modern upstream may ask for in one call before toolgate stops answering. */
const MAX_INPUT_ROUNDS = 8;

/**
 * `tools/call` on the upstream, as the era and the tool need: a plain call; a task-augmented one
 * (polled to its result); on the modern revision, `input_required` answers fulfilled through
 * `ask` and the call retried with the responses (or refused at once without it). Resolves with
 * the upstream's CallToolResult as sent; JSON-RPC errors reject as McpRpcError.
 */
export async function callUpstreamTool(connection: McpConnection, tool: string, args: JsonObject, options: ToolCallOptions): Promise<JsonObject> {
  const { signal, hooks, meta, taskTtlMs } = options;
  let params: JsonObject = { name: tool, arguments: args, ...(meta && Object.keys(meta).length > 0 ? { _meta: meta } : {}), ...(taskTtlMs !== undefined ? { task: { ttl: taskTtlMs } } : {}) };
  for (let round = 0; ; round++) {
    const result = await connection.request('tools/call', params, signal, hooks);
    if (taskTtlMs !== undefined) return awaitUpstreamTask(connection, result, signal, hooks);
    if (connection.framing.era === 'legacy' || result.resultType === undefined || result.resultType === 'complete') return result;
    if (result.resultType !== 'input_required') throw new BrokenAnswerError(`it answered tools/call with resultType ${JSON.stringify(result.resultType).slice(0, 40)}, which toolgate did not ask for`);
    if (!options.ask) throw new InputRequiredError(inputRefusal(result));
    if (round + 1 >= MAX_INPUT_ROUNDS) throw new InputRequiredError(`it asked for input ${MAX_INPUT_ROUNDS} times in one call; toolgate stopped answering`);
    params = { ...params, inputResponses: await fulfil(result, options.ask, signal), ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}) };
  }
}

type InputRequest = { method: string; params: JsonObject };

function inputRequests(result: JsonObject): Array<[string, InputRequest]> {
  const requests = isJsonObject(result.inputRequests) ? result.inputRequests : {};
  return Object.entries(requests).flatMap(([key, value]) =>
    isJsonObject(value) && typeof value.method === 'string' ? [[key, { method: value.method, params: isJsonObject(value.params) ? value.params : {} }] as [string, InputRequest]] : [],
  );
}

function inputRefusal(result: JsonObject): string {
  const methods = [...new Set(inputRequests(result).map(([, request]) => request.method))];
  return methods.length > 0 ? methods.map(cannotRelayMessage).join('; ') : 'it asked for input from the client without saying what; toolgate cannot relay it';
}

async function fulfil(result: JsonObject, ask: AskClient, signal: AbortSignal): Promise<JsonObject> {
  const responses: JsonObject = {};
  for (const [key, request] of inputRequests(result)) responses[key] = await ask(request, signal);
  return responses;
}
