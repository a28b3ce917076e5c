import type { Context, MiddlewareHandler } from 'hono';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { Authenticator } from './authenticator.ts';
import type { GatewayEnv } from './env.ts';
import { errorResponse } from './errors.ts';
import { bearerChallenge, withResourceMetadata } from './challenge.ts';

export interface CredentialOptions {
  /** The route's path names the tenant (`/mcp/:tenant`): this parameter. */
  tenantParam?: string;
  /** The protected-resource metadata URL a 401 points clients to (RFC 9728 section 5.1), if the route has one. */
  resourceMetadata?: (c: Context, tenant: string) => string | undefined;
}

/**
 * The request's bearer credential → principal (tenant, principal, scopes), through the app's
 * authenticator. A request may name its tenant (the path, `?tenant=` or `X-Toolgate-Tenant`).
 * Every 401 carries `WWW-Authenticate: Bearer …` (RFC 6750), with `error="invalid_token"` when
 * a credential was presented and refused.
 */
export function requireCredential(authenticator: Authenticator, options: CredentialOptions = {}): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    const fromPath = options.tenantParam ? c.req.param(options.tenantParam) : undefined;
    const fromRequest = c.req.query('tenant') ?? c.req.header('x-toolgate-tenant');
    if (fromPath !== undefined && fromRequest !== undefined && fromRequest !== fromPath) {
      return errorResponse(c, 400, 'invalid_request', `the path names tenant "${fromPath}" but the request also names "${fromRequest.slice(0, 80)}"; name one tenant`);
    }
    const named = fromPath ?? fromRequest;
    const outcome = await authenticator.authenticate(match?.[1], named);
    if (!outcome.ok) {
      if (outcome.status === 401) {
        const challenge = outcome.challenge ?? (match ? bearerChallenge({ error: 'invalid_token' }) : 'Bearer');
        c.header('WWW-Authenticate', withResourceMetadata(challenge, fromPath !== undefined ? options.resourceMetadata?.(c, fromPath) : undefined));
      }
      return errorResponse(c, outcome.status, outcome.code, outcome.message);
    }
    c.set('principal', outcome.principal);
    if (outcome.principal.credential?.kind === 'token' && match) c.set('signInToken', match[1]);
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
