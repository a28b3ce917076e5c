import { connectionCaller } from '../connection-caller.ts';
import { Hono, type Context } from 'hono';
import type { TenantDirectory } from '../../dispatch/tenant-directory.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../idempotency/keys.ts';
import { EVENT_STREAM_HEADERS } from '../../mcp/answer.ts';
import { answerMcpRequest, type McpAnswer, type McpRequestContext } from '../../mcp/serve.ts';
import { bearerChallenge, withResourceMetadata } from '../challenge.ts';
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
}

/**
 * POST /mcp and /mcp/:tenant: the tenant's governed tools as an MCP server for every protocol
 * revision (lib/mcp), authenticated with the same API keys, or with tokens from the tenant's
 * identity provider.
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
    const context: McpRequestContext = {
      runtime: c.get('runtime'),
      principal,
      env,
      threadHeader: c.req.header('x-toolgate-thread'),
      idempotencyHeader,
      defer: deferFor(c),
      span: c.get('span'),
      protocolVersion: c.req.header('mcp-protocol-version'),
      manifestFreshMs: options.tenants?.freshForMs?.(principal.tenant),
      consoleOrigin: options.publicOrigin?.(c),
      connect: connectionCaller(c, options.publicOrigin?.(c)),
      onMissingScope: (required) => (missing ??= required),
    };
    // Sent through Hono's own response (as c.json does): a foreign Response would be merged with
    // the headers middleware already set by copying its body stream.
    const response = sendAnswer(c, await answerMcpRequest(c.req.raw, read.body, context));
    // A token can be widened by asking its provider again (MCP's step-up flow), so a token
    // lacking a tool's scope hears 403 insufficient_scope with the scopes to ask for. The call
    // was refused and audited before anything ran; a key (which cannot be widened) gets the
    // forbidden tool result. A JSON-RPC batch keeps its results.
    if (!missing || principal.credential?.kind !== 'token' || Array.isArray(read.body)) return response;
    const scope = [...new Set([...principal.scopes, ...missing])].join(' ');
    const tenant = c.req.param('tenant');
    const message = `this token lacks a scope the tool needs; ask the identity provider for a token with the scopes "${scope}"`;
    c.header('WWW-Authenticate', withResourceMetadata(bearerChallenge({ error: 'insufficient_scope', scope, error_description: message }), tenant ? options.resourceMetadata?.(c, tenant) : undefined));
    return errorResponse(c, 403, 'insufficient_scope', message);
  };
  // Stateless: no server-initiated stream to open and no session to end (the spec allows 405).
  const notAllowed = (c: Context) => c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' }, id: null }, 405, { allow: 'POST' });
  routes.post('/', serve);
  routes.post('/:tenant', serve);
  routes.on(['GET', 'DELETE'], '/', notAllowed);
  routes.on(['GET', 'DELETE'], '/:tenant', notAllowed);
  return routes;
}

function sendAnswer(c: Context<GatewayEnv>, answer: McpAnswer): Response {
  if (answer.stream) return c.body(answer.stream, answer.status as 200, EVENT_STREAM_HEADERS);
  return answer.body === null ? c.body(null, answer.status as 202) : c.body(answer.body, answer.status as 200, { 'Content-Type': 'application/json' });
}
