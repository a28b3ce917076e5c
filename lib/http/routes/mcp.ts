import { Hono } from 'hono';
import { handleMcpRequest } from '../../mcp/server.ts';
import { deferFor } from '../defer.ts';
import type { GatewayEnv } from '../env.ts';
import { readJsonBody } from '../errors.ts';

/** POST /mcp: the tenant's governed tools as an MCP server, authenticated with the same API keys. */
export function mcpRoutes(env: Readonly<Record<string, string | undefined>>) {
  const routes = new Hono<GatewayEnv>();
  routes.post('/', async (c) => {
    const read = await readJsonBody(c);
    if (!read.ok) return read.response;
    return handleMcpRequest(c.req.raw, { runtime: c.get('runtime'), principal: c.get('principal'), env, threadHeader: c.req.header('x-toolgate-thread'), defer: deferFor(c) }, read.body);
  });
  // Stateless: no server-initiated stream to open and no session to end (the spec allows 405).
  routes.on(['GET', 'DELETE'], '/', (c) => c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' }, id: null }, 405, { allow: 'POST' }));
  return routes;
}
