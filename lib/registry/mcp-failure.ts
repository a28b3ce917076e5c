import { MissingSecretError } from '../crypto/secrets.ts';
import { egressRefusal } from '../egress/fetch.ts';
import { neverSent } from '../egress/never-sent.ts';
import { ToolError } from './errors.ts';

const EXCERPT_CHARS = 300;

// The SDK's own McpError codes for failures on this side of the wire (shared/protocol.js).
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

interface CodedError extends Error {
  code?: unknown;
}

const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/** A JSON-RPC error the server answered with (the SDK's McpError), as opposed to one raised locally. */
function serverError(error: unknown): { code: number; message: string } | undefined {
  const coded = error as CodedError;
  if (!(error instanceof Error) || error.name !== 'McpError' || typeof coded.code !== 'number') return undefined;
  if (coded.code === REQUEST_TIMEOUT || (coded.code === CONNECTION_CLOSED && /Connection closed$/.test(error.message))) return undefined;
  // The SDK prefixes "MCP error N: " on each side of the wire; the reader needs the words once.
  return { code: coded.code, message: error.message.replace(/^(MCP error -?\d+: )+/, '') };
}

/** The HTTP status of a StreamableHTTPError (the SDK's transport error), if it is one. */
function httpStatus(error: unknown): number | undefined {
  const coded = error as CodedError;
  return error instanceof Error && error.message.startsWith('Streamable HTTP error: ') && typeof coded.code === 'number' ? coded.code : undefined;
}

/** Why the server could not be used, in words an operator can act on. */
export function unavailableCause(error: unknown): string {
  if (error instanceof MissingSecretError) return error.message;
  const refused = egressRefusal(error);
  if (refused) return `${refused.message}. Nothing was sent`;
  if ((error as CodedError).code === REQUEST_TIMEOUT && (error as Error).name === 'McpError') return 'it did not answer in time';
  const status = httpStatus(error);
  const detail = error instanceof Error ? error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '') : String(error);
  if (status === 401 || status === 403) return `it refused the credentials (HTTP ${status}${detail ? `: ${excerpt(detail)}` : ''}); check the secret its headers name`;
  if (status === -1) return `it answered with something other than MCP (${detail})`;
  if (status !== undefined) return `it answered HTTP ${status}${detail ? `: ${excerpt(detail)}` : ''}`;
  if (error instanceof Error && (error.name === 'ZodError' || error instanceof SyntaxError)) return 'its answer is not an MCP JSON-RPC message; is the URL an MCP endpoint?';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return excerpt(cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
}

export function upstreamUnavailable(url: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError('unavailable', `upstream MCP server at ${url} is unavailable: ${unavailableCause(error)}`, { upstream: url });
}

/**
 * Whether the call provably never reached a tool: a missing secret, a refused connection, or
 * an answer that says so (credentials refused, no such session or endpoint, not MCP at all).
 */
function neverRan(error: unknown): boolean {
  if (error instanceof MissingSecretError || neverSent(error)) return true;
  const status = httpStatus(error);
  if (status !== undefined) return [-1, 400, 401, 403, 404, 405, 406, 415].includes(status);
  return error instanceof Error && (error.name === 'ZodError' || error instanceof SyntaxError);
}

/**
 * A failed `tools/call`. A JSON-RPC error is an `error` result (the server heard the call and
 * refused it). A failure before the call could reach the tool is `unavailable`: the idempotency
 * claim is released, so a retry runs it. Anything else (the connection dropped, the server
 * failed with 5xx, no answer in time) may have run the tool: an `error` result that is stored,
 * so a retry replays it instead of running a side effect twice.
 */
export function upstreamCallFailure(url: string, tool: string, error: unknown): ToolError {
  const answered = serverError(error);
  if (answered) {
    return new ToolError('error', `upstream MCP server at ${url} refused tools/call "${tool}" (JSON-RPC error ${answered.code}): ${answered.message}`, { upstream: url, mcp_error_code: answered.code });
  }
  if (neverRan(error)) return upstreamUnavailable(url, error);
  return new ToolError(
    'error',
    `upstream MCP server at ${url} did not complete tools/call "${tool}" (${unavailableCause(error)}); it may have run: check its effect before calling again under a new call id`,
    { upstream: url, uncertain: true },
  );
}

/**
 * The server no longer knows the session (it restarted, or expired it) or the client was
 * closed: nothing ran, so a new session may safely try the call again.
 */
export function isSessionGone(error: unknown): boolean {
  const status = httpStatus(error);
  if (status === 404) return true;
  if (status === 400 && /session/i.test((error as Error).message)) return true;
  return error instanceof Error && error.message === 'Not connected';
}
