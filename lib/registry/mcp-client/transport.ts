import type { Fetch } from '../../egress/fetch.ts';
import { AnswerTooLargeError, MAX_TOOL_ANSWER_BYTES, readBoundedText } from '../executors/bounded-body.ts';
import type { JsonObject } from '../json.ts';
import { BrokenAnswerError, McpHttpError, NotMcpError } from './errors.ts';
import { McpRpcError, readMessage, type InboundMessage, type RequestId } from './messages.ts';
import { resumableEventData, type ReopenStream } from './resumption.ts';
import { eventData } from './sse.ts';

/** Where an upstream listens and how to reach it: its URL, the manifest's headers (secrets resolved) and the caller's egress. */
export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
  fetch: Fetch;
}

/** The answer to one POSTed request: the messages it carried, in order, and the session it named (initialize). */
export interface PostAnswer {
  sessionId?: string;
  messages: AsyncIterable<InboundMessage>;
}

/** Bytes of an error answer kept for its message. */
const ERROR_BODY_BYTES = 64 * 1024;
const EXCERPT_CHARS = 300;

/** The manifest's headers, then the request's own. */
function requestHeaders(endpoint: McpEndpoint, headers: Record<string, string>): Headers {
  const sent = new Headers(endpoint.headers);
  for (const [name, value] of Object.entries(headers)) sent.set(name, value);
  return sent;
}

function send(endpoint: McpEndpoint, body: JsonObject, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  const sent = requestHeaders(endpoint, headers);
  sent.set('content-type', 'application/json');
  sent.set('accept', 'application/json, text/event-stream');
  return endpoint.fetch(endpoint.url, { method: 'POST', headers: sent, body: JSON.stringify(body), signal });
}

/**
 * The failure an HTTP error answer stands for: the JSON-RPC error it carries for this very
 * request (2026-07-28 servers answer header, version and capability refusals as 4xx with one),
 * else an McpHttpError with an excerpt of the body.
 */
async function httpError(response: Response, id?: RequestId): Promise<McpHttpError | McpRpcError> {
  const text = ((await readBoundedText(response, ERROR_BODY_BYTES).catch(() => '')) ?? '').trim();
  const inBand = id === undefined ? undefined : rpcErrorFor(text, id, response.status);
  if (inBand) return inBand;
  return new McpHttpError(response.status, text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);
}

function rpcErrorFor(text: string, id: RequestId, status: number): McpRpcError | undefined {
  try {
    const message = readMessage(JSON.parse(text));
    return message?.kind === 'response' && message.id === id && message.error ? new McpRpcError(message.error, status) : undefined;
  } catch {
    return undefined;
  }
}

const mediaType = (header: string | null) => (header ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * POSTs one JSON-RPC request. The answer is JSON (one message) or an event stream (messages
 * until the response); either is read at most MAX_TOOL_ANSWER_BYTES far, and reading ends when
 * `signal` aborts. An HTTP failure is an McpHttpError, another content type a NotMcpError.
 * `resumable` (the legacy revisions): an event stream that ends before the reader stops is
 * resumed from its last event id (resumption.ts).
 */
export async function postRequest(endpoint: McpEndpoint, body: JsonObject, headers: Record<string, string>, signal: AbortSignal, options: { resumable?: boolean } = {}): Promise<PostAnswer> {
  const response = await send(endpoint, body, headers, signal);
  if (!response.ok) throw await httpError(response, body.id as RequestId);
  const sessionId = response.headers.get('mcp-session-id') ?? undefined;
  const type = mediaType(response.headers.get('content-type'));
  if (type === 'text/event-stream' && response.body) {
    const reopen: ReopenStream | undefined = options.resumable ? (lastEventId, reading) => reopenStream(endpoint, headers, lastEventId, reading) : undefined;
    return { sessionId, messages: parsedEvents(resumableEventData(response.body, MAX_TOOL_ANSWER_BYTES, signal, reopen)) };
  }
  if (type === 'application/json') return { sessionId, messages: single(response) };
  await response.body?.cancel().catch(() => {});
  throw new NotMcpError(`Unexpected content type: ${response.headers.get('content-type') ?? 'none'}`);
}

/**
 * Opens a legacy session's own event stream (GET): what the server sends outside any request,
 * such as requests of the client it makes on its own and session notifications. Undefined when
 * it cannot be had (the server offers none: 405; another listener holds it: 409; no answer; not
 * an event stream): listening there is best effort.
 */
export async function openSessionStream(endpoint: McpEndpoint, headers: Record<string, string>, signal: AbortSignal): Promise<AsyncIterable<InboundMessage> | undefined> {
  const sent = requestHeaders(endpoint, headers);
  sent.set('accept', 'text/event-stream');
  const response = await endpoint.fetch(endpoint.url, { method: 'GET', headers: sent, signal }).catch(() => undefined);
  if (!response) return undefined;
  if (response.ok && mediaType(response.headers.get('content-type')) === 'text/event-stream' && response.body) return parsedEvents(eventData(response.body, MAX_TOOL_ANSWER_BYTES));
  await response.body?.cancel().catch(() => {});
  return undefined;
}

/**
 * Opens an answer's event stream again from after `lastEventId` (GET with Last-Event-ID, the
 * request's own headers): the server replays what followed on that stream and goes on. A refusal
 * or failure is a BrokenAnswerError, never an HTTP error: the request was sent, so its tool may
 * have run (a 404 here is no "session gone, nothing ran").
 */
async function reopenStream(endpoint: McpEndpoint, headers: Record<string, string>, lastEventId: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const sent = requestHeaders(endpoint, headers);
  sent.set('accept', 'text/event-stream');
  sent.set('last-event-id', lastEventId);
  const failed = (why: string) => new BrokenAnswerError(`its event stream closed before the answer came, and resuming it (GET with Last-Event-ID) failed: ${why}`);
  let response: Response;
  try {
    response = await endpoint.fetch(endpoint.url, { method: 'GET', headers: sent, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw failed(error instanceof Error ? error.message : String(error));
  }
  const type = response.headers.get('content-type');
  if (response.ok && mediaType(type) === 'text/event-stream' && response.body) return response.body;
  if (!response.ok) throw failed((await httpError(response)).message);
  await response.body?.cancel().catch(() => {});
  throw failed(`it answered ${type ?? 'no content type'} instead of an event stream`);
}

/** POSTs a notification or a response to the upstream's request: only the status matters (202 Accepted, as a rule). */
export async function postNotice(endpoint: McpEndpoint, body: JsonObject, headers: Record<string, string>, signal: AbortSignal): Promise<void> {
  const response = await send(endpoint, body, headers, signal);
  if (!response.ok) throw await httpError(response);
  await response.body?.cancel().catch(() => {});
}

function parsed(text: string, what: string): InboundMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BrokenAnswerError(`${what} is not JSON`);
  }
  const message = readMessage(value);
  if (!message) throw new BrokenAnswerError(`${what} is not a JSON-RPC message`);
  return message;
}

async function* single(response: Response): AsyncGenerator<InboundMessage> {
  const text = await readBoundedText(response, MAX_TOOL_ANSWER_BYTES);
  if (text === undefined) throw new AnswerTooLargeError(MAX_TOOL_ANSWER_BYTES);
  let message: InboundMessage;
  try {
    message = parsed(text, 'its answer');
  } catch (error) {
    // A JSON answer that is no JSON-RPC message comes from something that is not an MCP server.
    throw new NotMcpError(error instanceof Error ? error.message : String(error));
  }
  yield message;
}

async function* parsedEvents(events: AsyncIterable<string>): AsyncGenerator<InboundMessage> {
  for await (const data of events) yield parsed(data, 'an event of its answer');
}
