import type { ConnectionAccess } from '../../connections/connection-access.ts';
import { userAuthorization, withoutAuthorization, type ExecutorAuth } from '../../connections/executor-auth.ts';
import type { ResolveSecret } from '../../crypto/secrets.ts';
import type { Fetch } from '../../egress/fetch.ts';
import type { ToolExecutionContext } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import { McpConnection } from '../mcp-client/connection.ts';
import { isModernVersion } from '../mcp-client/protocol.ts';
import type { McpEndpoint } from '../mcp-client/transport.ts';
import { resolveHeaders } from '../mcp-upstream/endpoint.ts';
import { isSessionGone, upstreamCallFailure, upstreamUnavailable } from '../mcp-upstream/failure.ts';
import type { McpSessionPool } from './mcp-session-pool.ts';

/** An upstream MCP server as a manifest pins it: where, with which headers, in which era. */
export interface UpstreamTarget {
  url: string;
  /** Sent with every request; "env:NAME" values are resolved. */
  headers?: Record<string, string>;
  /** The revision an import learnt: a modern one is called statelessly, a legacy one (or none) through a session. */
  protocol?: string;
  /** Send the calling user's own token of this manifest connection (lib/connections). */
  auth?: ExecutorAuth;
}

/** How an executor reaches its upstream: kept legacy sessions, the tenant's secrets, the gateway's egress. */
export interface UpstreamAccess {
  pool: McpSessionPool;
  secrets: ResolveSecret | undefined;
  fetch: Fetch;
  /** The calling users' connection tokens, for a target with `auth`. */
  connections?: ConnectionAccess;
}

/** What one request to the upstream is, for the words of its failure: `tools/call "search"`. */
export interface UpstreamRequestLabel {
  method: string;
  name: string;
}

/**
 * Runs one exchange with the upstream in its era: a modern upstream statelessly, with the
 * envelope (declaring `capabilities` and the caller's log level); a legacy one on a pooled
 * session, tried once more on a new session when the kept one is gone (nothing ran). A failure
 * is a ToolError saying whether the request may have run (mcp-upstream/failure.ts).
 */
export async function onUpstream<T>(
  target: UpstreamTarget,
  access: UpstreamAccess,
  context: ToolExecutionContext,
  request: { label: UpstreamRequestLabel; capabilities: JsonObject },
  exchange: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const endpoint = await userEndpoint(upstreamEndpoint(target, access, context), target, access, context);
  const traced = tracedEndpoint(endpoint, context.traceparent);
  const fail = (error: unknown) => upstreamCallFailure(target.url, request.label.name, error, request.label.method);
  if (isModernVersion(target.protocol)) {
    const connection = new McpConnection(traced, { era: 'modern', protocolVersion: target.protocol!, capabilities: request.capabilities, ...(context.log_level ? { logLevel: context.log_level } : {}) });
    try {
      return await exchange(connection);
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      throw fail(error);
    }
  }
  for (let attempt = 1; ; attempt++) {
    const pooled = await access.pool.acquire(context.tenant, endpoint, request.capabilities, context.signal);
    try {
      return await exchange(new McpConnection(traced, { era: 'legacy', ...pooled.session }));
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      const gone = isSessionGone(error);
      if (gone) access.pool.drop(pooled);
      // A kept session may have died with an upstream restart (nothing ran): one new session, one more try.
      if (!gone || pooled.fresh || attempt > 1) throw fail(error);
    }
  }
}

/** The upstream with the manifest's headers resolved; a secret that does not resolve makes it unavailable. */
function upstreamEndpoint(target: UpstreamTarget, access: UpstreamAccess, context: ToolExecutionContext): McpEndpoint {
  try {
    return { url: target.url, headers: resolveHeaders(target.headers, access.secrets ?? context.env), fetch: access.fetch };
  } catch (error) {
    throw upstreamUnavailable(target.url, error);
  }
}

/**
 * The endpoint with the calling user's token when the target has `auth` (sessions are then pooled
 * per user: the pool's key holds the headers). Asking the user to connect is thrown as it is.
 */
async function userEndpoint(endpoint: McpEndpoint, target: UpstreamTarget, access: UpstreamAccess, context: ToolExecutionContext): Promise<McpEndpoint> {
  if (!target.auth) return endpoint;
  const authorization = await userAuthorization(target.auth, access.connections, context);
  return { ...endpoint, headers: { ...Object.fromEntries(withoutAuthorization(Object.entries(endpoint.headers))), ...authorization } };
}

/**
 * With tracing on, the call's requests carry its traceparent instead of a manifest's own trace
 * headers. Sessions are pooled by the untraced endpoint, so they are still shared.
 */
function tracedEndpoint(endpoint: McpEndpoint, traceparent: string | undefined): McpEndpoint {
  if (!traceparent) return endpoint;
  const headers = Object.fromEntries(Object.entries(endpoint.headers).filter(([name]) => !['traceparent', 'tracestate'].includes(name.toLowerCase())));
  return { ...endpoint, headers: { ...headers, traceparent } };
}
