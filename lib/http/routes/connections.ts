import { Hono } from 'hono';
import type { ConnectServices } from '../../connections/connect-routes.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';

/**
 * GET /v1/connections (`?all=1` for an admin: every principal's) and
 * DELETE /v1/connections/:connection (`?principal=` for an admin): who holds which grant, never
 * a token; revoking also revokes at the provider.
 */
export function connectionRoutes(services: ConnectServices) {
  const routes = new Hono<GatewayEnv>();
  const load = () => import('../../connections/revoke.ts');

  routes.get('/', async (c) => {
    const grants = await (await load()).visibleGrants(services, c.get('principal'), c.req.query('all') === '1');
    return c.json({ connections: grants.map(({ tenant: _tenant, ...shown }) => shown) });
  });

  routes.delete('/:connection', async (c) => {
    const { mayRevoke, revokeGrant } = await load();
    const viewer = c.get('principal');
    const owner = { tenant: viewer.tenant, principal: c.req.query('principal') ?? viewer.principal, connection: c.req.param('connection') };
    // Another principal's grant is not found for a caller who may not revoke it (nothing to learn about who holds what).
    if (!mayRevoke(viewer, owner)) return errorResponse(c, 404, 'not_found', `no grant of "${owner.connection}" for ${owner.principal}`);
    const outcome = await revokeGrant(services, owner, viewer.principal);
    if (!outcome.revoked) return errorResponse(c, 404, 'not_found', `no grant of "${owner.connection}" for ${owner.principal}`);
    return c.json({ principal: owner.principal, connection: owner.connection, ...outcome });
  });

  return routes;
}
