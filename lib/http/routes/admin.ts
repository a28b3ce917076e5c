import { Hono } from 'hono';
import { createApiKey } from '../../governance/api-keys.ts';
import type { Store } from '../../stores/store.ts';
import { requireScope } from '../auth.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse, readJsonBody } from '../errors.ts';

const NAME = /^[\w.@:-]{1,100}$/;

/** POST /v1/admin/keys (scope admin): a new key for a principal of the caller's own tenant, shown once. */
export function adminRoutes(store: Store) {
  const routes = new Hono<GatewayEnv>();
  routes.use('*', requireScope('admin'));
  routes.post('/keys', async (c) => {
    const read = await readJsonBody(c);
    if (!read.ok) return read.response;
    const body = read.body as { principal?: unknown; scopes?: unknown };
    if (typeof body.principal !== 'string' || !NAME.test(body.principal)) return errorResponse(c, 400, 'invalid_request', 'principal must be 1-100 letters, digits and _ . @ : -');
    if (!Array.isArray(body.scopes) || body.scopes.some((s) => typeof s !== 'string' || !NAME.test(s))) return errorResponse(c, 400, 'invalid_request', 'scopes must be an array of scope names');
    const tenant = c.get('principal').tenant;
    const principal = { tenant, principal: body.principal, scopes: body.scopes as string[] };
    const { key } = await createApiKey(store, principal);
    return c.json({ key, ...principal, note: 'this key is shown once; toolgate stores only its hash' }, 201);
  });
  return routes;
}
