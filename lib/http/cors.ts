import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { originAllowed, type OriginPolicy } from './origin-policy.ts';

/**
 * CORS for browser MCP clients (/mcp, /mcp/:tenant and the protected-resource metadata), granted
 * to the operator's TOOLGATE_ALLOWED_ORIGINS only: the same list the origin guard enforces, so a
 * page the guard would refuse gets no grant either. Bearer tokens travel in the Authorization
 * header, which CORS treats as an ordinary request header (allowed below), not as credentials:
 * no Access-Control-Allow-Credentials, so no cookie of the gateway's ever rides along.
 */
export function mcpCors(policy: () => OriginPolicy): MiddlewareHandler {
  const allowOrigin = (origin: string) => (origin && originAllowed(policy(), origin) ? origin : null);
  const preflight = (requested: string | undefined) =>
    cors({
      origin: allowOrigin,
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: [...ALLOW_HEADERS, ...paramHeaders(requested)],
      exposeHeaders: [EXPOSE_HEADERS],
      maxAge: 600,
    });
  // Other requests get the same headers as hono/cors gives them, added to the route's own
  // response: hono/cors makes a response before the route and then merges the route's into it,
  // which copies the answer through a stream on Node (a measurable share of an /mcp call). A
  // route that sends its answer itself takes them from the context (corsHeadersFor), so no
  // response is rebuilt; otherwise they are set on the route's response after it.
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c.req.header('access-control-request-headers'))(c, next);
    const origin = allowOrigin(c.req.header('origin') ?? '');
    // Most callers are not browsers: they all get the one record (never changed: readers copy it).
    const headers = origin ? { 'Access-Control-Allow-Origin': origin, ...WITHOUT_ORIGIN } : WITHOUT_ORIGIN;
    const handover = { headers, taken: false };
    c.set(CORS_HANDOVER, handover);
    await next();
    if (handover.taken) return;
    const set = (name: string, value: string) => (name === 'Vary' ? c.res.headers.append(name, value) : c.res.headers.set(name, value));
    try {
      for (const [name, value] of Object.entries(headers)) set(name, value);
    } catch {
      // Immutable headers (a fetched response): Hono's c.header copies the response first.
      for (const [name, value] of Object.entries(headers)) c.header(name, value, { append: name === 'Vary' });
    }
  };
}

/** The context variable through which the middleware hands its headers to a route that sends its own answer. */
const CORS_HANDOVER = 'corsHandover';

/**
 * The CORS headers of this request's answer, for a route that builds its response itself (with
 * every header in one plain record, which @hono/node-server writes without a Headers object):
 * taking them tells the middleware they are sent. None where the middleware did not run.
 */
export function corsHeadersFor(c: Context): Readonly<Record<string, string>> | undefined {
  const handover = c.get(CORS_HANDOVER) as { headers: Readonly<Record<string, string>>; taken: boolean } | undefined;
  if (!handover) return undefined;
  handover.taken = true;
  return handover.headers;
}

const EXPOSE_HEADERS = 'Mcp-Session-Id,WWW-Authenticate';

/** The CORS headers of an answer to a request without an allowed Origin. */
export const WITHOUT_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ 'Access-Control-Expose-Headers': EXPOSE_HEADERS, Vary: 'Origin' });

/** The request headers MCP clients send (2026-07-28 adds Mcp-Method and Mcp-Name). */
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID', 'X-Toolgate-Tenant', 'X-Toolgate-Thread'];

/** A tool's `Mcp-Param-<Name>` headers are named by its schema, so the ones a preflight asks for are granted by pattern. */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/i;

function paramHeaders(requested: string | undefined): string[] {
  if (!requested) return [];
  return requested.split(',').map((name) => name.trim()).filter((name) => PARAM_HEADER.test(name)).slice(0, 32);
}
