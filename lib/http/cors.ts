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
  return cors({
    origin: (origin) => (origin && originAllowed(policy(), origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID', 'X-Toolgate-Tenant', 'X-Toolgate-Thread'],
    exposeHeaders: ['Mcp-Session-Id', 'WWW-Authenticate'],
    maxAge: 600,
  });
}
