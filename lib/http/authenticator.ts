import type { ApiKeyResolver, KeyCheck, Principal } from '../governance/api-keys.ts';

/** What a presented credential proved: a principal, or why not (status and code as the API answers them). */
export type Authentication =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 404 | 503; code: 'unauthorized' | 'not_found' | 'unavailable'; message: string };

/**
 * Turns the bearer credential of a request (and the tenant it names, if any) into a principal.
 * The API, /mcp and the console all sign callers in through this one seam, so revocation,
 * expiry and tenant isolation hold the same way everywhere.
 */
export interface Authenticator {
  authenticate(credential: string | undefined, namedTenant: string | undefined): Promise<Authentication>;
}

/**
 * API keys. Naming another tenant than the key's answers 404, never 403, so a key cannot even
 * learn that another tenant exists.
 */
export function apiKeyAuthenticator(keys: ApiKeyResolver): Authenticator {
  return {
    async authenticate(credential, namedTenant) {
      if (!credential) return { ok: false, status: 401, code: 'unauthorized', message: 'missing API key: send "Authorization: Bearer <key>"' };
      let checked: KeyCheck;
      try {
        checked = await keys.check(credential);
      } catch (error) {
        return { ok: false, status: 503, code: 'unavailable', message: `cannot check the API key: ${(error as Error).message}` };
      }
      // Unknown, revoked, expired, or rotated past its grace: the message says which.
      if (!checked.ok) return { ok: false, status: 401, code: 'unauthorized', message: checked.message };
      const principal = checked.principal;
      if (namedTenant !== undefined && namedTenant !== principal.tenant) return { ok: false, status: 404, code: 'not_found', message: `tenant "${namedTenant}" not found` };
      return { ok: true, principal };
    },
  };
}
