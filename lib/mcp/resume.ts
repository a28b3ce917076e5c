import type { ToolResult } from '../dispatch/call.ts';
import { storedCallResult } from '../dispatch/stored-call.ts';
import { idempotencyKeyFor } from '../idempotency/keys.ts';
import { ownedBy } from '../idempotency/record-owner.ts';
import { enterWait, TOO_MANY_WAITING } from '../limits/store-waits.ts';
import { ErrorCode, errorMessage, jsonRpcError, resultMessage } from '../mcp-wire/json-rpc.ts';
import type { StateRecord } from '../stores/store.ts';
import { rejectionAnswer, type McpAnswer } from './answer.ts';
import { answerToolCall } from './call-answer.ts';
import { McpEventStream } from './event-stream.ts';
import type { McpRequestContext } from './methods.ts';
import { waitFor, WaitEndedError } from './relay/store-wait.ts';
import { readEventId, streamOwner, type StreamName } from './stream-event-id.ts';
import { RESUME_RETRY_MS } from './stream-resumption.ts';

/**
 * GET /mcp with Last-Event-ID (SEP-1699): the rest of a `tools/call` event stream whose client
 * lost it. toolgate keeps no stream, only the call's record (its idempotency record, which names
 * its principal), so the rest is the call's answer: the stream waits (up to RESUME_WAIT_MS) for
 * the record to hold the outcome, then sends the JSON-RPC response for the stream's request, made
 * by the same code the POST's answer was, and ends. Progress and log notifications the call sent
 * before the break are not sent again (they were never kept).
 *
 * An id toolgate could not have given this caller (undecodable, another principal's, an unknown
 * or expired call) is 404. A call that keeps no record, or one still running when the wait ends,
 * gets a JSON-RPC error saying so and what to do. Resuming after the answer gets 204: nothing more.
 */

/** How long a resumed stream waits for its call to finish before telling the client to resume again (under common proxies' idle limits). */
export const RESUME_WAIT_MS = 25_000;
/** How often a waiting resumed stream reads its call's record: each read is billed by some stores (as GET /v1/calls?wait polls). */
const RESUME_POLL_MS = 500;

/** The answer to GET + Last-Event-ID from `context`'s caller; `signal` (the client leaving) ends the wait. */
export async function resumeStream(lastEventId: string, context: McpRequestContext, signal?: AbortSignal): Promise<McpAnswer> {
  const { tenant, principal } = context.principal;
  const read = readEventId(lastEventId);
  if (!read || read.name.owner !== (await streamOwner(tenant, principal))) return unknownStream();
  if (read.place === 'end') return { status: 204, body: null };
  const { name, place } = read;
  const store = context.runtime.deps.store;
  if (name.record !== 'c' || !store) return answerStream(lastEventId, place, (events) => events.send(errorMessage(name.requestId, notKept(name)), 'end'));
  const key = idempotencyKeyFor('call', { tenant, thread_id: name.thread_id, call_id: name.call_id, tool: '', args_hash: '' })!;
  let record: StateRecord | undefined;
  try {
    record = await store.get(key);
  } catch (error) {
    return answerStream(lastEventId, place, (events) => events.send(errorMessage(name.requestId, storeUnavailable(error)), 'same'));
  }
  // The stream was primed once this record was durable: no record (or another principal's) is no stream of this caller's.
  if (!record || !ownedBy(record, principal)) return unknownStream();
  const wait = enterWait(tenant, principal);
  if (!wait) return tooManyWaiting();
  return answerStream(lastEventId, place, (events) => sendOutcome(events, key, name, context, signal).finally(() => wait.leave()));
}

function tooManyWaiting(): McpAnswer {
  return rejectionAnswer(429, jsonRpcError(ErrorCode.ServerError, `Too Many Requests: ${TOO_MANY_WAITING}; resume this stream after another has ended`));
}

function unknownStream(): McpAnswer {
  return rejectionAnswer(404, jsonRpcError(ErrorCode.ServerError, 'Not Found: no event stream of yours has this Last-Event-ID (it is malformed, not yours, or its call is unknown or expired); send the request again'));
}

/** 200 and an event stream continuing the one `lastEventId` came from; `fill` sends its events, then it ends. */
function answerStream(lastEventId: string, place: number, fill: (events: McpEventStream) => void | Promise<void>): McpAnswer {
  const events = new McpEventStream();
  events.resumeAt(lastEventId.slice(0, lastEventId.lastIndexOf('.')), place, RESUME_RETRY_MS);
  void Promise.resolve()
    .then(() => fill(events))
    .catch(() => {})
    .finally(() => events.close());
  return { status: 200, body: null, stream: events.readable };
}

/** What the record says once the wait is over: the call's result, that its claim was given back, or that its run was lost before it started its side effect. */
type Outcome = { kind: 'result'; result: ToolResult } | { kind: 'gone' } | { kind: 'lapsed' };

/** Waits for the call's outcome and sends it as the POST would have, or says why there is none (yet). */
async function sendOutcome(events: McpEventStream, key: string, name: StreamName, context: McpRequestContext, signal?: AbortSignal): Promise<void> {
  const { deps } = context.runtime;
  const thread = { tenant: context.principal.tenant, thread_id: name.thread_id };
  let outcome: Outcome;
  try {
    outcome = await waitFor<Outcome>(key, async () => {
      const record = await deps.store!.get(key);
      // Gone: its claim was given back (the call was refused before it ran, e.g. by a limit). A key
      // another principal holds now (it took the freed or lapsed key over meanwhile: a thread and
      // call id are not secret) is gone too: its call is not this stream's, nor its result.
      if (!record || !ownedBy(record, context.principal.principal)) return { kind: 'gone' };
      // A lease past its time: the instance running the call stopped before any side effect (a retry may take it over).
      if (record.state === 'in_progress' && (record.claimable_after ?? record.expires_at) <= deps.now()) return { kind: 'lapsed' };
      const result = await storedCallResult(deps, key, record, thread, name.call_id, context.defer);
      return result.status === 'in_progress' ? undefined : { kind: 'result', result };
    }, { signal, until: deps.now() + RESUME_WAIT_MS, now: deps.now, pollMs: RESUME_POLL_MS });
  } catch (error) {
    if (signal?.aborted) return;
    events.send(errorMessage(name.requestId, error instanceof WaitEndedError ? stillRunning(name) : storeUnavailable(error)), 'same');
    return;
  }
  if (outcome.kind !== 'result') return events.send(errorMessage(name.requestId, outcome.kind === 'gone' ? refused(name) : lapsed(name)), 'end');
  const answer = await answerToolCall(deps, context.principal, { thread_id: name.thread_id, call_id: name.call_id }, outcome.result);
  events.send(resultMessage(name.requestId, answer), 'end');
}

const callData = (name: StreamName) => ({ thread_id: name.thread_id, call_id: name.call_id });

function notKept(name: StreamName) {
  const message =
    name.record === 'k'
      ? 'This tool keeps its outcomes by their arguments, not by call: send the same tools/call again (same arguments, same thread) to get the stored result of this call without running it again.'
      : 'toolgate keeps no outcome of this call (read tools and tools with idempotency "none" keep none), so its answer cannot be resumed: call the tool again if you still need its result.';
  return jsonRpcError(ErrorCode.ServerError, message, callData(name));
}

function refused(name: StreamName) {
  return jsonRpcError(ErrorCode.ServerError, `The call ${name.call_id} has no record of yours any more (it was refused before it ran, and a refusal is not kept), so there is no answer to resume: call the tool again.`, callData(name));
}

function lapsed(name: StreamName) {
  return jsonRpcError(ErrorCode.ServerError, `The call ${name.call_id} stopped before it finished (the gateway running it went away before the tool started any side effect), so there is no answer to resume: call the tool again.`, callData(name));
}

function stillRunning(name: StreamName) {
  return jsonRpcError(ErrorCode.ServerError, `The call ${name.call_id} is still running after ${RESUME_WAIT_MS / 1000} s; resume the stream again (GET with the same Last-Event-ID) to keep waiting for its answer. It is not run twice.`, callData(name));
}

function storeUnavailable(error: unknown) {
  const cause = error instanceof Error ? error.message : String(error);
  return jsonRpcError(ErrorCode.InternalError, `The call's record could not be read (${cause}); resume the stream again later (GET with the same Last-Event-ID).`);
}
