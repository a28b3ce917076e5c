import { connectionCaller } from '../connection-caller.ts';
import { Hono, type Context } from 'hono';
import type { TenantDirectory } from '../../dispatch/tenant-directory.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../idempotency/keys.ts';
import { EVENT_STREAM_HEADERS, rejectionAnswer, sessionHeader } from '../../mcp/answer.ts';
import { resumeStream } from '../../mcp/resume.ts';
import { ErrorCode, jsonRpcError } from '../../mcp-wire/json-rpc.ts';
import { readStandardHeaders } from '../../mcp-wire/standard-headers.ts';
import { answerMcpRequest, type McpAnswer, type McpRequestContext } from '../../mcp/serve.ts';
import { bearerChallenge, withResourceMetadata } from '../challenge.ts';
import { corsHeadersFor, WITHOUT_ORIGIN } from '../cors.ts';
import { deferFor } from '../defer.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse, readJsonBody } from '../errors.ts';

export interface McpRouteOptions {
  /** The protected-resource metadata URL of `/mcp/:tenant`, for challenges. */
  resourceMetadata?: (c: Context, tenant: string) => string | undefined;
  /** The tenants: how much longer this isolate trusts a tenant's active manifest (cache hints on modern list results). */
  tenants?: TenantDirectory;
  /** Where browsers reach this gateway (TOOLGATE_PUBLIC_URL, else the request's origin): confirm links point at its console. */
  publicOrigin?: (c: Context) => string;
  /** Whether an upstream's requests of the client may be relayed to the calling client (lib/mcp/relay). */
  replyChannel?: boolean;
}

/**
 * POST /mcp and /mcp/:tenant: the tenant's governed tools as an MCP server for every protocol
 * revision (lib/mcp), authenticated with the same API keys, or with tokens from the tenant's
 * identity provider. GET with Last-Event-ID resumes a call's event stream; GET without it, and
 * DELETE, are 405.
 */
export function mcpRoutes(env: Readonly<Record<string, string | undefined>>, options: McpRouteOptions = {}) {
  const routes = new Hono<GatewayEnv>();
  const serve = async (c: Context<GatewayEnv>) => {
    const idempotencyHeader = c.req.header('idempotency-key');
    if (idempotencyHeader !== undefined && (idempotencyHeader === '' || idempotencyHeader.length > MAX_IDEMPOTENCY_KEY)) {
      return errorResponse(c, 400, 'invalid_request', `the Idempotency-Key header must be 1-${MAX_IDEMPOTENCY_KEY} characters`);
    }
    const read = await readJsonBody(c);
    if (!read.ok) return read.response;
    let missing: string[] | undefined;
    const principal = c.get('principal');
    // Read once: the context's version and the era's choice (lib/mcp/serve.ts) are the same header's.
    const standardHeaders = readStandardHeaders(c.req.raw.headers);
    const context: McpRequestContext = {
      runtime: c.get('runtime'),
      principal,
      env,
      threadHeader: c.req.header('x-toolgate-thread'),
      idempotencyHeader,
      defer: deferFor(c),
      span: c.get('span'),
      protocolVersion: standardHeaders.protocolVersion,
      manifestFreshMs: options.tenants?.freshForMs?.(principal.tenant),
      consoleOrigin: options.publicOrigin && (() => options.publicOrigin!(c)),
      connect: connectionCaller(c, options.publicOrigin && (() => options.publicOrigin!(c))),
      onMissingScope: (required) => (missing ??= required),
      replyChannel: options.replyChannel ?? false,
    };
    const answer = await answerMcpRequest(c.req.raw, read.body, context, standardHeaders);
    // A token can be widened by asking its provider again (MCP's step-up flow), so a token
    // lacking a tool's scope hears 403 insufficient_scope with the scopes to ask for. The call
    // was refused and audited before anything ran; a key (which cannot be widened) gets the
    // forbidden tool result. A JSON-RPC batch keeps its results.
    if (!missing || principal.credential?.kind !== 'token' || Array.isArray(read.body)) return sendAnswer(c, answer);
    const scope = [...new Set([...principal.scopes, ...missing])].join(' ');
    const tenant = c.req.param('tenant');
    const message = `this token lacks a scope the tool needs; ask the identity provider for a token with the scopes "${scope}"`;
    c.header('WWW-Authenticate', withResourceMetadata(bearerChallenge({ error: 'insufficient_scope', scope, error_description: message }), tenant ? options.resourceMetadata?.(c, tenant) : undefined));
    return errorResponse(c, 403, 'insufficient_scope', message);
  };
  // Stateless: no server-initiated stream to open (the spec allows 405).
  const notAllowed = (c: Context) => c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' }, id: null }, 405, { allow: 'POST' });
  // A session holds nothing on the gateway (its id carries what the client declared: lib/mcp/session.ts),
  // so there is nothing to end: the spec's 405 for a server that does not let clients terminate sessions.
  const noTermination = (c: Context) => c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: toolgate keeps nothing for an MCP session, so there is none to terminate; stop sending its Mcp-Session-Id (initialize again for a new one)' }, id: null }, 405, { allow: 'POST' });
  // GET with Last-Event-ID: the rest of a call's event stream its client lost (lib/mcp/resume.ts).
  // The id names the call; a session (which holds nothing) adds nothing to it.
  const resume = async (c: Context<GatewayEnv>) => {
    const lastEventId = c.req.header('last-event-id');
    if (lastEventId === undefined) return notAllowed(c);
    if (!c.req.header('accept')?.includes('text/event-stream')) return sendAnswer(c, rejectionAnswer(406, jsonRpcError(ErrorCode.ServerError, 'Not Acceptable: Client must accept text/event-stream')));
    const principal = c.get('principal');
    const context: McpRequestContext = { runtime: c.get('runtime'), principal, env, defer: deferFor(c) };
    return sendAnswer(c, await resumeStream(lastEventId, context, c.req.raw.signal));
  };
  routes.post('/', serve);
  routes.post('/:tenant', serve);
  routes.get('/', resume);
  routes.get('/:tenant', resume);
  routes.delete('/', noTermination);
  routes.delete('/:tenant', noTermination);
  return routes;
}

/**
 * The answer as a Response built here, with all its headers (CORS's included) in one plain
 * record: through Hono's c.body, a second header makes a Headers object that @hono/node-server
 * must then copy back into a record, a measurable share of an /mcp call. No middleware on these
 * routes sets a header before the route (cors.ts hands its own over), so none is lost.
 */
function sendAnswer(c: Context<GatewayEnv>, answer: McpAnswer): Response {
  const cors = corsHeadersFor(c);
  if (answer.stream) return new Response(answer.stream, { status: answer.status, headers: { ...EVENT_STREAM_HEADERS, ...cors } });
  if (answer.body === null) return new Response(null, { status: answer.status, headers: cors });
  // The common answer (no session to name, a caller without an allowed Origin) takes one shared record.
  if (answer.sessionId === undefined && cors === WITHOUT_ORIGIN) return new Response(answer.body, { status: answer.status, headers: JSON_WITHOUT_ORIGIN });
  return new Response(answer.body, { status: answer.status, headers: { 'Content-Type': 'application/json', ...sessionHeader(answer), ...cors } });
}

/** A JSON answer's headers for a caller that sent no allowed Origin (most): one record, not one per answer. */
const JSON_WITHOUT_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ 'Content-Type': 'application/json', ...WITHOUT_ORIGIN });
