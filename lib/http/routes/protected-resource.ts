import { Hono } from 'hono';
import type { TenantDirectory } from '../../dispatch/tenant-directory.ts';
import type { TenantRuntime } from '../../dispatch/tenant-runtime.ts';
import { errorResponse } from '../errors.ts';
import { publicOrigin } from '../public-url.ts';

const TENANT = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Whether a path segment can be a tenant id (the manifest schema's pattern). */
export const isTenantId = (value: string) => TENANT.test(value);
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The MCP endpoint of one tenant, which is the protected resource its tokens are for. */
export const tenantMcpPath = (tenant: string) => `/mcp/${tenant}`;

/** RFC 9728 section 3.1: the well-known prefix goes between the host and the resource's path. */
export const resourceMetadataUrl = (origin: string, tenant: string) => `${origin}${RESOURCE_METADATA_PATH}${tenantMcpPath(tenant)}`;

/** The scopes a client may ask for: every scope a tool of the tenant's active manifest requires. */
function scopesSupported(runtime: TenantRuntime): string[] {
  return [...new Set(runtime.registry.definitions().flatMap((definition) => definition.scopes))].sort();
}

/**
 * GET /.well-known/oauth-protected-resource/mcp/:tenant (RFC 9728): what an MCP client needs to
 * get a token for a tenant's MCP endpoint, namely the tenant's identity provider as its
 * authorization server. An unknown tenant and one without identity settings are the same 404.
 */
export function protectedResourceRoutes(tenants: TenantDirectory, pinnedOrigin: string | undefined) {
  const routes = new Hono();
  routes.get('/mcp/:tenant', async (c) => {
    const tenant = c.req.param('tenant');
    const runtime = TENANT.test(tenant) ? await tenants.runtime(tenant) : undefined;
    const oidc = runtime?.manifest.identity?.oidc;
    if (!runtime || !oidc) return errorResponse(c, 404, 'not_found', `no protected-resource metadata for /mcp/${tenant.slice(0, 80)}: no such tenant, or it takes no tokens from an identity provider`);
    const origin = publicOrigin(pinnedOrigin, c.req.url);
    return c.json({
      resource: `${origin}${tenantMcpPath(tenant)}`,
      authorization_servers: [oidc.issuer],
      scopes_supported: scopesSupported(runtime),
      bearer_methods_supported: ['header'],
      resource_name: `toolgate: ${tenant}`,
    }, 200, { 'cache-control': 'public, max-age=300' });
  });
  return routes;
}
