import { failureResult, type ToolResult } from '../../dispatch/call.ts';
import { withdrawnFailure } from '../../dispatch/approvals/results.ts';
import { withdrawParkedCall } from '../../dispatch/approvals/withdrawal.ts';
import { hashJson } from '../../idempotency/canonical-json.ts';
import { metaOf } from '../../mcp-wire/envelope.ts';
import { ErrorCode, jsonRpcError, type JsonObject, type JsonRpcRequest } from '../../mcp-wire/json-rpc.ts';
import { answerToolCall } from '../call-answer.ts';
import { askToConnect } from '../connect-input.ts';
import type { McpCallIdentity } from '../call-identity.ts';
import { McpMethodError } from '../method-error.ts';
import { dispatchMcpTool, mcpToolArguments, mcpToolIdentity, type McpRequestScope, type McpToolCall } from '../methods.ts';
import { tasksOffered } from '../parking.ts';
import { declaresTasks } from '../tasks/task-access.ts';
import { confirmAsker, confirmResponse, type ConfirmAsker } from './confirm-input.ts';
import type { ConfirmOptions } from './confirm-round.ts';
import { answerWithInputRelay, isInputState, relaysInput, resumeWithInput } from '../relay/input-relay.ts';
import { takeRequestState, type ConfirmRequestState, type TakenState } from './request-state.ts';

/** Input-required answers a call gets before it is answered with its waiting text (a call sent again afresh starts over). */
const MAX_ROUNDS = 2;

/**
 * A 2026-07-28 `tools/call`. A call the policy parks for its user's confirmation is answered, for
 * a client that declares URL elicitation, `input_required` with a link to the console's confirm
 * page and a `requestState` (confirm-round.ts). The retry (same params, the client's
 * `inputResponses` and the `requestState` echoed) resumes that very call: confirmed meanwhile,
 * it answers the result (the confirmation ran it, once); still waiting, a task for a client that
 * takes tasks (`input_required`, with the same request), else one more `input_required`, then
 * the waiting text; declined or dismissed by the user, the call is withdrawn (audited) and
 * answered so. Every other call is answered as call-answer.ts answers it.
 */
export async function answerModernToolCall(request: JsonRpcRequest, scope: McpRequestScope): Promise<JsonObject> {
  const params = request.params!;
  const call: McpToolCall = { name: params.name as string, arguments: params.arguments as JsonObject | undefined, _meta: metaOf(params), idempotencyKey: params.idempotencyKey as string | undefined };
  const { runtime, principal, consoleOrigin } = scope.context;
  const asked = declaresTasks(params) && tasksOffered(runtime) ? 'modern' : undefined;
  const asker = confirmAsker(runtime.deps, consoleOrigin, params);
  // Only a call that can be asked, or a retry, binds its arguments' hash to a requestState.
  const args_hash = asker || params.requestState !== undefined ? await hashJson(mcpToolArguments(call) ?? {}) : '';
  const identity = await mcpToolIdentity(scope, request.id, call);
  const ask = (number: number): ConfirmOptions | undefined => asker && { asker, round: { number, tool: call.name, args_hash } };
  // A retry answering what the call's upstream asked the client (relay/input-relay.ts).
  if (isInputState(params.requestState)) return resumeWithInput(scope, call, identity, params.requestState, params.inputResponses);
  if (typeof params.requestState !== 'string') {
    const answer = async (result: ToolResult) => askToConnect(params, result) ?? answerToolCall(runtime.deps, principal, identity, result, asked, ask(1));
    if (relaysInput(scope, call)) return answerWithInputRelay(scope, request.id, call, identity, answer);
    return answer(await dispatchMcpTool(scope, request.id, call, identity));
  }
  const store = runtime.deps.store;
  const retried = { tenant: principal.tenant, principal: principal.principal, thread_id: identity.thread_id, tool: call.name, args_hash };
  const taken: TakenState = store ? await takeRequestState(store, params.requestState, retried, runtime.deps.now()) : { ok: false, reason: 'unknown' };
  if (!taken.ok) throw refusedState(taken.reason);
  const resumed = resumedIdentity(identity, taken.state);
  const answer = confirmResponse(params.inputResponses);
  if (answer === 'decline' || answer === 'cancel') {
    const declined = await declineCall(scope, call, resumed, taken.state, asker);
    if (declined) return declined;
  }
  const result = await dispatchMcpTool(scope, request.id, call, resumed);
  // Still waiting: a task carries the request from now on; without one, ask again while rounds are left.
  const again = !asked && taken.state.round < MAX_ROUNDS ? ask(taken.state.round + 1) : asker && { asker };
  return answerToolCall(runtime.deps, principal, resumed, result, asked, again);
}

/**
 * The user declined (or dismissed) the confirmation in the client: the call is withdrawn, as a
 * cancelled task's is, and answered as declined. Undefined when it was decided meanwhile (then
 * the retry answers how it ended).
 */
async function declineCall(scope: McpRequestScope, call: McpToolCall, identity: McpCallIdentity, state: ConfirmRequestState, asker: ConfirmAsker | undefined): Promise<JsonObject | undefined> {
  const { runtime, principal, defer } = scope.context;
  const withdrawal = await withdrawParkedCall(runtime.deps, state.approval_id, principal.principal, defer);
  if (!withdrawal.ok) return undefined;
  const result = failureResult({ call_id: state.call_id, name: call.name }, withdrawnFailure(withdrawal.approval), performance.now());
  return answerToolCall(runtime.deps, principal, identity, result, undefined, asker && { asker });
}

/** The retry runs as the call it resumes: that call's thread and id, and its twin pointer (with any task the client was given for it). */
function resumedIdentity(identity: McpCallIdentity, state: ConfirmRequestState): McpCallIdentity {
  const twin = identity.twin;
  const task = twin?.found?.call_id === state.call_id && twin.found.task_id ? { task_id: twin.found.task_id } : {};
  return { thread_id: state.thread_id, call_id: state.call_id, ...(twin ? { twin: { key: twin.key, found: { call_id: state.call_id, approval_id: state.approval_id, ...task } } } : {}) };
}

/**
 * Why a `requestState` resumes nothing: a JSON-RPC -32602 error, as a tampered relay state's
 * (relay/input-relay.ts), saying how the client goes on (send the call again afresh).
 */
function refusedState(reason: Exclude<TakenState, { ok: true }>['reason']): McpMethodError {
  const afresh = 'Nothing ran for it. Send the call again without requestState and inputResponses to learn where it stands (and to be asked again if it still waits).';
  const refusal = (message: string) => new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, `${message} ${afresh}`, { request_state: reason }));
  switch (reason) {
    case 'unknown':
      return refusal("requestState is not one toolgate gave this client (unknown, altered, or another client's).");
    case 'expired':
      return refusal('requestState expired.');
    case 'other_call':
      return refusal("requestState belongs to another call: a retry must repeat the original call's name, arguments and thread exactly.");
    case 'used':
      return refusal('requestState was already used by an earlier retry (each is good for one).');
  }
}
