import type { MiddlewareHandler } from 'hono';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { Authenticator } from './authenticator.ts';
import type { GatewayEnv } from './env.ts';
import { errorResponse } from './errors.ts';

/**
 * The request's bearer credential → principal (tenant, principal, scopes), through the app's
 * authenticator. A request may name its tenant (`?tenant=` or `X-Toolgate-Tenant`).
 */
export function requireCredential(authenticator: Authenticator): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    const named = c.req.query('tenant') ?? c.req.header('x-toolgate-tenant');
    const outcome = await authenticator.authenticate(match?.[1], named);
    if (!outcome.ok) return errorResponse(c, outcome.status, outcome.code, outcome.message);
    c.set('principal', outcome.principal);
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
