import type { MiddlewareHandler } from 'hono';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { ApiKeyResolver } from '../governance/api-keys.ts';
import type { GatewayEnv } from './env.ts';
import { errorResponse } from './errors.ts';

/**
 * Bearer API key → principal (tenant, principal, scopes). Naming another tenant (`?tenant=` or
 * `X-Toolgate-Tenant`) answers 404, never 403, so a key cannot even learn that another tenant exists.
 */
export function apiKeyAuth(keys: ApiKeyResolver): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return errorResponse(c, 401, 'unauthorized', 'missing API key: send "Authorization: Bearer <key>"');
    let principal;
    try {
      principal = await keys.resolve(match[1]);
    } catch (error) {
      return errorResponse(c, 503, 'unavailable', `cannot check the API key: ${(error as Error).message}`);
    }
    if (!principal) return errorResponse(c, 401, 'unauthorized', 'invalid API key');
    const named = c.req.query('tenant') ?? c.req.header('x-toolgate-tenant');
    if (named !== undefined && named !== principal.tenant) return errorResponse(c, 404, 'not_found', `tenant "${named}" not found`);
    c.set('principal', principal);
    await next();
  };
}

/** For routes that serve the tenant's tools: its runtime (the active manifest version). */
export function tenantRuntime(tenants: TenantDirectory): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const tenant = c.get('principal').tenant;
    const runtime = await tenants.runtime(tenant);
    if (!runtime) return errorResponse(c, 404, 'not_found', `tenant "${tenant}" has no active manifest; publish and activate one first`);
    c.set('runtime', runtime);
    await next();
  };
}

/** Routes for operators: the key must hold one of `scopes` (403 otherwise: the tenant is the caller's own). */
export function requireScope(...scopes: string[]): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const held = c.get('principal').scopes;
    if (!scopes.some((scope) => held.includes(scope))) {
      return errorResponse(c, 403, 'forbidden', `this API key lacks the scope ${scopes.map((s) => `"${s}"`).join(' or ')}`);
    }
    await next();
  };
}
