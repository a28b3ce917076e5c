import { tenantSecretResolver } from '../crypto/tenant-secrets.ts';
import { auditConnection } from './connection-audit.ts';
import { forgetUse } from './first-use.ts';
import type { ConnectServices } from './connect-routes.ts';
import { GrantStore, type GrantInfo, type GrantOwner } from './grant-store.ts';
import { oauthClientOf, revokeToken } from './oauth-client.ts';
import { providerBinding } from './provider-binding.ts';
import { providerEndpoints } from './provider-metadata.ts';

export interface RevokeOutcome {
  /** There was a grant, and it is gone. */
  revoked: boolean;
  /** The provider's revocation endpoint accepted the token: `undefined` when it has none (or the grant did not open). */
  provider_revoked?: boolean;
}

/**
 * Revokes a user's grant: at the provider first (RFC 7009, the refresh token, else the access
 * token), when it has a revocation endpoint; then the gateway forgets it, whatever the provider
 * said (the user asked). Audited in `_connections` with who revoked it.
 */
export async function revokeGrant(services: ConnectServices, owner: GrantOwner, by: string): Promise<RevokeOutcome> {
  if (!services.keys) return { revoked: false };
  const grants = new GrantStore(services.store, services.keys);
  const manifest = (await services.tenants.runtime(owner.tenant))?.manifest;
  const settings = manifest?.connections && Object.hasOwn(manifest.connections, owner.connection) ? manifest.connections[owner.connection] : undefined;
  // A grant of a connection since re-pointed (or removed) does not open: it is only forgotten.
  const grant = settings ? await grants.load(owner, providerBinding(manifest!, owner.connection)) : undefined;
  let provider_revoked: boolean | undefined;
  if (grant) {
    try {
      const endpoints = settings ? await providerEndpoints(settings, services.egress) : undefined;
      if (settings && endpoints?.revocation_endpoint) {
        const client = oauthClientOf(settings, tenantSecretResolver(owner.tenant, services.secretGrants, services.env));
        const [token, hint] = grant.tokens.refresh_token ? [grant.tokens.refresh_token, 'refresh_token' as const] : [grant.tokens.access_token, 'access_token' as const];
        provider_revoked = await revokeToken(services.egress, endpoints.revocation_endpoint, client, token, hint);
      }
    } catch {
      provider_revoked = false;
    }
  }
  const revoked = await grants.remove(owner);
  await forgetUse(services.store, owner);
  if (revoked) await auditConnection(services.audit, 'connection.revoked', owner, by, provider_revoked === undefined ? {} : { provider_revoked });
  return { revoked, ...(provider_revoked === undefined ? {} : { provider_revoked }) };
}

/** Who may see and revoke which grants: a principal its own; an admin (scope `admin`) every principal's of its tenant. */
export async function visibleGrants(services: ConnectServices, viewer: { tenant: string; principal: string; scopes: string[] }, all: boolean): Promise<GrantInfo[]> {
  if (!services.keys) return [];
  const grants = new GrantStore(services.store, services.keys);
  return grants.list(viewer.tenant, all && viewer.scopes.includes('admin') ? {} : { principal: viewer.principal });
}

export function mayRevoke(viewer: { principal: string; scopes: string[] }, owner: Pick<GrantOwner, 'principal'>): boolean {
  return viewer.principal === owner.principal || viewer.scopes.includes('admin');
}
