import type { ToolResult } from '../../dispatch/call.ts';
import { hashJson } from '../../idempotency/canonical-json.ts';
import { CLIENT_CAPABILITIES_META_KEY, metaOf } from '../../mcp-wire/envelope.ts';
import { ErrorCode, isPlainObject, jsonRpcError, type JsonObject } from '../../mcp-wire/json-rpc.ts';
import { McpToolExecutor } from '../../registry/executors/mcp.ts';
import type { RecordStore } from '../../stores/store.ts';
import type { McpCallIdentity } from '../call-identity.ts';
import { McpMethodError } from '../method-error.ts';
import { dispatchMcpTool, mcpToolArguments, type McpRequestScope, type McpToolCall } from '../methods.ts';
import { clientAsker, declaresAnyAsking } from './client-asker.ts';
import { newInputStateId, saveInputState, takeInputState, type InputRequestState, type TakenInputState } from './input-state.ts';
import { awaitStep, InputChannel, type InputStep } from './input-steps.ts';
import { replyProblem } from './reply-shapes.ts';
import { answerReplySlot, REPLY_TTL_MS, type ClientReply } from './reply-slots.ts';
import { WaitEndedError } from './store-wait.ts';

type ReplyResult = Extract<ClientReply, { result: unknown }>['result'];

/**
 * An upstream's requests of the client during a 2026-07-28 `tools/call` (Multi Round-Trip
 * Requests: a modern server sends no requests of its own; it answers `input_required`). The call
 * runs once, on the instance that took it; when its upstream asks the client something, the
 * request is answered `input_required` with that request (keyed by its reply slot's id) and a
 * `requestState` (input-state.ts), while the call waits on. The client's retry (any instance)
 * hands its `inputResponses` to the waiting call through the store, then answers the call's next
 * step: another request, or the call's result. Only a request that declares what the upstream
 * asks for is asked; everything else is refused at once, as without a relay.
 */

/** How long a retry waits for the call's next step before telling the client to retry again (under API gateways' 29 s). */
const RETRY_WAIT_MS = 25_000;

/** Whether this call's upstream requests can be relayed: an upstream MCP tool, a store, and a request declaring something an upstream may ask. */
export function relaysInput(scope: McpRequestScope, call: McpToolCall): boolean {
  const capabilities = metaOf(call)?.[CLIENT_CAPABILITIES_META_KEY];
  return scope.context.replyChannel === true && scope.context.runtime.deps.store !== undefined && isPlainObject(capabilities) && declaresAnyAsking(capabilities) && scope.context.runtime.registry.get(call.name) instanceof McpToolExecutor;
}

export const isInputState = (requestState: unknown): requestState is string => typeof requestState === 'string' && requestState.startsWith('tgi_');

/**
 * Dispatches the call with its upstream's requests relayed; `finish` turns its result into the
 * answer. Answers that answer, or the first request the upstream makes (then the call runs on:
 * on Workers kept alive with `defer`, elsewhere in the process).
 */
export async function answerWithInputRelay(scope: McpRequestScope, requestId: string | number, call: McpToolCall, identity: McpCallIdentity, finish: (result: ToolResult) => Promise<JsonObject>): Promise<JsonObject> {
  const { runtime, principal } = scope.context;
  const { store, now } = runtime.deps;
  const channel = new InputChannel(store!, principal.tenant, now);
  const asker = clientAsker({
    store: store!,
    tenant: principal.tenant,
    principal: principal.principal,
    now,
    capabilities: metaOf(call)?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown>,
    deliver: (id, request) => channel.write({ kind: 'ask', reply_id: id, request }),
  });
  const relayed: McpRequestScope = { ...scope, relay: (params) => ({ ...scope.relay?.(params), ask_client: asker }) };
  const running = dispatchMcpTool(relayed, requestId, call, identity)
    .then(finish)
    .catch((error: unknown) => ({ content: [{ type: 'text', text: `toolgate could not answer this call: ${error instanceof Error ? error.message : String(error)}` }], isError: true }))
    .then(async (answer: JsonObject) => {
      if (channel.used) await channel.write({ kind: 'done', answer }).catch(() => {});
      return answer;
    });
  const first = await Promise.race([running.then((answer) => ({ answer })), channel.first.then((step) => ({ step }))]);
  if ('answer' in first) return first.answer;
  scope.context.defer?.(running);
  const args_hash = await hashJson(mcpToolArguments(call) ?? {});
  return stepAnswer(store!, { tenant: principal.tenant, principal: principal.principal, thread_id: identity.thread_id, tool: call.name, args_hash, channel: channel.id }, first.step, now);
}

/** A retry echoing a `requestState` of ours: its answers go to the waiting call, then the call's next step is answered. */
export async function resumeWithInput(scope: McpRequestScope, call: McpToolCall, identity: McpCallIdentity, requestState: string, inputResponses: unknown): Promise<JsonObject> {
  const { runtime, principal } = scope.context;
  const { store, now } = runtime.deps;
  const responses = isPlainObject(inputResponses) ? inputResponses : {};
  const retried = { tenant: principal.tenant, principal: principal.principal, thread_id: identity.thread_id, tool: call.name, args_hash: await hashJson(mcpToolArguments(call) ?? {}) };
  const taken = store ? await takeInputState(store, requestState, retried, now(), (state) => responsesProblem(state, responses)) : ({ ok: false, reason: 'unknown' } as const);
  if (!taken.ok) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, refusedState(taken), { request_state: taken.reason }));
  const { state } = taken;
  const missing: InputRequestState['requests'] = {};
  for (const [key, request] of Object.entries(state.requests)) {
    if (responses[key] === undefined) missing[key] = request;
    // A slot that expired meanwhile told the call the client did not answer: the next step says how it went on.
    else await answerReplySlot(store!, principal, key, { result: responses[key] as ReplyResult }, now());
  }
  const bound = { ...retried, channel: state.channel };
  // What was not answered is asked again (the spec's rule), under a new handle.
  if (Object.keys(missing).length > 0) return inputRequired(store!, { ...bound, seq: state.seq }, missing, now());
  try {
    const step = await awaitStep(store!, principal.tenant, state.channel, state.seq + 1, { until: now() + RETRY_WAIT_MS, now });
    return stepAnswer(store!, bound, step, now);
  } catch (error) {
    if (!(error instanceof WaitEndedError)) throw error;
    // Still running, nothing asked: a handle without requests, so the client retries and waits again.
    return inputRequired(store!, { ...bound, seq: state.seq }, {}, now());
  }
}

type Bound = Omit<InputRequestState, 'id' | 'seq' | 'requests' | 'expires_at'>;

/** How long a request the upstream makes waits for others it makes at the same time, to be asked in one answer. */
const GATHER_MS = 50;

/** The answer for a step: the call's answer, or its request (with those the upstream made along with it) as input_required. */
async function stepAnswer(store: RecordStore, bound: Bound, step: InputStep, now: () => number): Promise<JsonObject> {
  if (step.kind === 'done') return step.answer;
  const requests: InputRequestState['requests'] = { [step.reply_id]: step.request };
  let last = step.seq;
  for (;;) {
    const next = await awaitStep(store, bound.tenant, bound.channel, last + 1, { until: now() + GATHER_MS, now }).catch(() => undefined);
    // A `done` step is left for the retry: it follows the requests asked here.
    if (next?.kind !== 'ask') break;
    requests[next.reply_id] = next.request;
    last = next.seq;
  }
  return inputRequired(store, { ...bound, seq: last }, requests, now());
}

async function inputRequired(store: RecordStore, bound: Bound & { seq: number }, requests: InputRequestState['requests'], now: number): Promise<JsonObject> {
  const state: InputRequestState = { id: newInputStateId(), ...bound, requests, expires_at: now + REPLY_TTL_MS };
  await saveInputState(store, state);
  return { resultType: 'input_required', ...(Object.keys(requests).length > 0 ? { inputRequests: requests } : {}), requestState: state.id };
}

/** What is wrong with the retry's answers to the requests it answers (a key it does not know is ignored, as the spec says). */
function responsesProblem(state: InputRequestState, responses: JsonObject): string | undefined {
  for (const [key, request] of Object.entries(state.requests)) {
    if (responses[key] === undefined) continue;
    const problem = replyProblem(request.method, responses[key]);
    if (problem) return `inputResponses["${key}"]: ${problem}`;
  }
  return undefined;
}

function refusedState(taken: Exclude<TakenInputState, { ok: true }>): string {
  const afresh = 'Send the call again without requestState and inputResponses to start it over.';
  switch (taken.reason) {
    case 'unknown':
      return `requestState is not one toolgate gave this client (unknown, altered, or another client's); nothing was relayed. ${afresh}`;
    case 'expired':
      return `requestState expired; the call it belonged to was told the client did not answer. ${afresh}`;
    case 'other_call':
      return `requestState belongs to another call: a retry must repeat the original call's name, arguments and thread exactly. ${afresh}`;
    case 'used':
      return `requestState was already used by an earlier retry (each is good for one); use the requestState of the latest answer. ${afresh}`;
    case 'invalid':
      return `${taken.message}. Nothing was relayed; retry with a well-formed response and the same requestState.`;
  }
}

