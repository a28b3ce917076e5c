import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import { shownTenant, type Authentication, type Authenticator } from './authenticator.ts';
import { isTenantId } from './routes/protected-resource.ts';
import { bearerChallenge } from './challenge.ts';

const HOW_TO_NAME = 'name the tenant: call /mcp/<tenant>, add ?tenant=<tenant>, or send "X-Toolgate-Tenant: <tenant>"';

function refused(message: string): Authentication {
  return { ok: false, status: 401, code: 'unauthorized', message, challenge: bearerChallenge({ error: 'invalid_token', error_description: message }) };
}

/**
 * Bearer JWTs from a tenant's identity provider. The request names the tenant, and only that
 * tenant's settings (its active manifest's `identity.oidc`) can verify the token, so a token
 * from tenant A's provider never signs in to tenant B. An unknown tenant and a tenant without
 * identity settings are refused alike, so a token cannot probe which tenants exist.
 */
export function tokenAuthenticator(tenants: TenantDirectory): Authenticator {
  return {
    async authenticate(credential, namedTenant) {
      if (!credential) return { ok: false, status: 401, code: 'unauthorized', message: 'missing credential: send "Authorization: Bearer <token>"', challenge: 'Bearer' };
      if (namedTenant === undefined) return refused(`a token from an identity provider signs in to one tenant only: ${HOW_TO_NAME}`);
      // A name no tenant can have is not looked up (nor remembered by the directory as absent).
      if (!isTenantId(namedTenant)) return refused(`tenant "${shownTenant(namedTenant)}" accepts no tokens from an identity provider (no such tenant, or its manifest sets no identity.oidc)`);
      let verifier;
      try {
        verifier = (await tenants.runtime(namedTenant))?.tokens;
      } catch (error) {
        return { ok: false, status: 503, code: 'unavailable', message: `cannot read the tenant's settings: ${(error as Error).message}` };
      }
      if (!verifier) return refused(`tenant "${shownTenant(namedTenant)}" accepts no tokens from an identity provider (no such tenant, or its manifest sets no identity.oidc)`);
      const verified = await verifier.verify(credential);
      if (verified.ok) return verified;
      if (verified.reason === 'unavailable') return { ok: false, status: 503, code: 'unavailable', message: verified.message };
      return refused(`invalid token: ${verified.message}`);
    },
  };
}
