import { MissingSecretError } from '../../crypto/secrets.ts';
import { egressRefusal } from '../../egress/fetch.ts';
import { neverSent } from '../../egress/never-sent.ts';
import { ERROR_TEXT_CHARS } from '../content-text.ts';
import { ToolError } from '../errors.ts';
import { McpHttpError, NotMcpError } from '../mcp-client/errors.ts';
import { McpRpcError } from '../mcp-client/messages.ts';
import { InputRequiredError } from '../mcp-client/tool-call.ts';

const EXCERPT_CHARS = 300;

const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/** An upstream error's message; SDK servers prefix "MCP error N: " (on each side of a relay), which the reader needs once at most. */
function rpcMessage(error: McpRpcError): string {
  const message = error.message.replace(/^(MCP error -?\d+: )+/, '');
  return message.length > ERROR_TEXT_CHARS ? `${message.slice(0, ERROR_TEXT_CHARS)}…` : message;
}

const isTimeout = (error: unknown) => error instanceof Error && error.name === 'TimeoutError';

/** Why the server could not be used, in words an operator can act on. */
export function unavailableCause(error: unknown): string {
  if (error instanceof MissingSecretError) return error.message;
  const refused = egressRefusal(error);
  if (refused) return `${refused.message}. Nothing was sent`;
  if (isTimeout(error)) return 'it did not answer in time';
  if (error instanceof McpHttpError) {
    const detail = error.detail ? `: ${excerpt(error.detail)}` : '';
    if (error.status === 401 || error.status === 403) return `it refused the credentials (HTTP ${error.status}${detail}); check the secret its headers name`;
    return `it answered HTTP ${error.status}${detail}`;
  }
  if (error instanceof NotMcpError) return `it answered with something other than MCP (${excerpt(error.message)})`;
  if (error instanceof McpRpcError) return `it answered JSON-RPC error ${error.code}: ${rpcMessage(error)}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return excerpt(cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
}

export function upstreamUnavailable(url: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError('unavailable', `upstream MCP server at ${url} is unavailable: ${unavailableCause(error)}`, { upstream: url });
}

/** HTTP statuses that say the request was refused before any tool could run. */
const REFUSED_STATUSES = new Set([400, 401, 403, 404, 405, 406, 415]);

/**
 * Whether the call provably never reached a tool: a missing secret, a refused connection, or
 * an answer that says so (credentials refused, no such session or endpoint, not MCP at all).
 */
function neverRan(error: unknown): boolean {
  if (error instanceof MissingSecretError || neverSent(error) || error instanceof NotMcpError) return true;
  return error instanceof McpHttpError && REFUSED_STATUSES.has(error.status);
}

/**
 * A failed `tools/call` (or another request of a call: `resources/read`, `prompts/get`). A JSON-RPC error is an `error` result (the server heard the call and
 * refused it), and so is an upstream that needs input toolgate cannot relay. A failure before
 * the call could reach the tool is `unavailable`: the idempotency claim is released, so a retry
 * runs it. Anything else (the connection dropped, the server failed with 5xx, the answer broke
 * off or was too large) may have run the tool: an `error` result that is stored, so a retry
 * replays it instead of running a side effect twice.
 */
export function upstreamCallFailure(url: string, tool: string, error: unknown, method = 'tools/call'): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof McpRpcError) {
    return new ToolError('error', `upstream MCP server at ${url} refused ${method} "${tool}" (JSON-RPC error ${error.code}): ${rpcMessage(error)}`, { upstream: url, mcp_error_code: error.code });
  }
  if (error instanceof InputRequiredError) {
    const what = method === 'tools/call' ? `upstream tool "${tool}"` : `${method} "${tool}" on the upstream`;
    return new ToolError('error', `${what} at ${url} needs input from the client that made this call: ${error.message}`, { upstream: url });
  }
  if (neverRan(error)) return upstreamUnavailable(url, error);
  return new ToolError(
    'error',
    `upstream MCP server at ${url} did not complete ${method} "${tool}" (${unavailableCause(error)}); it may have run: check its effect before calling again under a new call id`,
    { upstream: url, uncertain: true },
  );
}

/**
 * The server no longer knows the session (it restarted, or expired it): nothing ran, so a new
 * session may safely try the call again.
 */
export function isSessionGone(error: unknown): boolean {
  const status = error instanceof McpHttpError ? error.status : error instanceof McpRpcError ? error.httpStatus : undefined;
  const words = error instanceof McpHttpError ? error.detail : error instanceof Error ? error.message : '';
  return status === 404 || (status === 400 && /session/i.test(words));
}

