import { rejectionMessage, type JsonRpcError, type JsonRpcId } from '../mcp-wire/json-rpc.ts';
import type { WireRejection } from '../mcp-wire/rejection.ts';

/**
 * An MCP answer as plain data (a status and a JSON text, no body for 202, or an event stream),
 * so the Hono route sends it through its own response and the headers its middleware set stay on it.
 */
export interface McpAnswer {
  status: number;
  /** JSON text (Content-Type: application/json), or null for a bodiless answer or a stream. */
  body: string | null;
  /** An event stream (Content-Type: text/event-stream): what upstreams said during the calls, then the answers. */
  stream?: ReadableStream<Uint8Array>;
  /** The `Mcp-Session-Id` header of an answer to a legacy `initialize` (session.ts). */
  sessionId?: string;
}

/** The headers of an event stream answer: never cached or buffered on the way (proxies would hold the notifications back). */
export const EVENT_STREAM_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } as const;

export function jsonAnswer(status: number, message: unknown): McpAnswer {
  return { status, body: JSON.stringify(message) };
}

/** 202: the messages (notifications, posted responses) were taken; there is nothing to answer. */
export const ACCEPTED: McpAnswer = { status: 202, body: null };

/** A request refused before any method ran. */
export function rejectionAnswer(status: number, error: JsonRpcError, id: JsonRpcId | null = null): McpAnswer {
  return jsonAnswer(status, rejectionMessage(id, error));
}

export function wireRejectionAnswer(refused: WireRejection, id: JsonRpcId | null): McpAnswer {
  return rejectionAnswer(refused.status, refused.error, id);
}

/** The answer as a Response (for callers outside a Hono route, such as tests). */
export function answerResponse(answer: McpAnswer): Response {
  if (answer.stream) return new Response(answer.stream, { status: answer.status, headers: EVENT_STREAM_HEADERS });
  if (answer.body === null) return new Response(null, { status: answer.status });
  return new Response(answer.body, { status: answer.status, headers: { 'Content-Type': 'application/json', ...sessionHeader(answer) } });
}

/** The session header an answer carries, if any (the JSON answer to a legacy `initialize`). */
export const sessionHeader = (answer: McpAnswer): { 'Mcp-Session-Id'?: string } => (answer.sessionId === undefined ? {} : { 'Mcp-Session-Id': answer.sessionId });
