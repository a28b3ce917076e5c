import type { MiddlewareHandler } from 'hono';
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
  // Other requests get the same headers as hono/cors gives them, set on the route's own response
  // after it: hono/cors makes a response before the route and then merges the route's into it,
  // which copies the answer through a stream on Node (a measurable share of an /mcp call).
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c.req.header('access-control-request-headers'))(c, next);
    await next();
    const origin = allowOrigin(c.req.header('origin') ?? '');
    const headers: Array<[string, string, 'set' | 'append']> = [...(origin ? [['Access-Control-Allow-Origin', origin, 'set'] as [string, string, 'set']] : []), ['Access-Control-Expose-Headers', EXPOSE_HEADERS, 'set'], ['Vary', 'Origin', 'append']];
    try {
      for (const [name, value, how] of headers) c.res.headers[how](name, value);
    } catch {
      // Immutable headers (a fetched response): Hono's c.header copies the response first.
      for (const [name, value, how] of headers) c.header(name, value, { append: how === 'append' });
    }
  };
}

const EXPOSE_HEADERS = 'Mcp-Session-Id,WWW-Authenticate';

/** The request headers MCP clients send (2026-07-28 adds Mcp-Method and Mcp-Name). */
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID', 'X-Toolgate-Tenant', 'X-Toolgate-Thread'];

/** A tool's `Mcp-Param-<Name>` headers are named by its schema, so the ones a preflight asks for are granted by pattern. */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/i;

function paramHeaders(requested: string | undefined): string[] {
  if (!requested) return [];
  return requested.split(',').map((name) => name.trim()).filter((name) => PARAM_HEADER.test(name)).slice(0, 32);
}
