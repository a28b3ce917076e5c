import { classifyInbound } from '../mcp-wire/classify.ts';
import { echoableId, ErrorCode, jsonRpcError } from '../mcp-wire/json-rpc.ts';
import { isJsonContentType } from '../mcp-wire/media-type.ts';
import { readStandardHeaders, type StandardHeaders } from '../mcp-wire/standard-headers.ts';
import { rejectionAnswer, wireRejectionAnswer, type McpAnswer } from './answer.ts';
import { answerLegacy } from './legacy.ts';
import type { McpRequestContext } from './methods.ts';
import { answerModern } from './modern.ts';

export type { McpAnswer } from './answer.ts';
export type { McpRequestContext } from './methods.ts';

/**
 * Answers one POST of MCP's Streamable HTTP transport, whichever revision it speaks: the era is
 * chosen from the body (lib/mcp-wire/classify.ts), then the modern or the legacy server answers.
 * Stateless: nothing is kept between requests, every answer comes from this request's context
 * (a legacy session's id carries what its client declared: session.ts; 2026-07-28 has no sessions,
 * and its requests' `Mcp-Session-Id` is not read).
 * `body` is the request's JSON, already read; `headers`, its standard headers, where the caller
 * already read them (the route does, for the context's protocol version).
 */
export function answerMcpRequest(request: Request, body: unknown, context: McpRequestContext, headers: StandardHeaders = readStandardHeaders(request.headers)): Promise<McpAnswer> {
  const refused = mediaTypeRefusal(request.headers);
  if (refused) return Promise.resolve(refused);
  const route = classifyInbound({ httpMethod: 'POST', headers, body });
  if (route.kind === 'reject') return Promise.resolve(wireRejectionAnswer(route, echoableId(body)));
  if (route.kind === 'modern') return answerModern(route, headers, request.headers, context);
  return answerLegacy(body, { protocolVersion: headers.protocolVersion ?? null, sessionId: request.headers.get('mcp-session-id') }, context, route.message);
}

/** A client must take both JSON and event streams, and send JSON (as every SDK does). */
function mediaTypeRefusal(headers: Headers): McpAnswer | undefined {
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return rejectionAnswer(406, jsonRpcError(ErrorCode.ServerError, 'Not Acceptable: Client must accept both application/json and text/event-stream'));
  }
  if (!isJsonContentType(headers.get('content-type'))) return rejectionAnswer(415, jsonRpcError(ErrorCode.ServerError, 'Unsupported Media Type: Content-Type must be application/json'));
  return undefined;
}
