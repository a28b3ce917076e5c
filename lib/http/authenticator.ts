import type { ApiKeyResolver, KeyCheck, Principal } from '../governance/api-keys.ts';

/** What a presented credential proved: a principal, or why not (status and code as the API answers them). */
export type Authentication =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      status: 401 | 404 | 503;
      code: 'unauthorized' | 'not_found' | 'unavailable';
      message: string;
      /** The WWW-Authenticate value for a 401 (RFC 6750), e.g. `Bearer error="invalid_token", error_description="..."`; routes may add resource_metadata. */
      challenge?: string;
    };

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
      if (namedTenant !== undefined && namedTenant !== principal.tenant) return { ok: false, status: 404, code: 'not_found', message: `tenant "${shownTenant(namedTenant)}" not found` };
      return { ok: true, principal };
    },
  };
}

/** Three base64url parts joined by dots (the last may be empty, as in an unsigned token, which is refused as a token). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(credential: string): boolean {
  return JWT_SHAPE.test(credential);
}

/**
 * The gateway's authenticator: a credential shaped like a JWT goes to `tokens` (the tenant's
 * identity provider), anything else to `keys` (API keys are "tg_" + hex and never contain dots).
 */
export function credentialAuthenticator(parts: { keys: Authenticator; tokens: Authenticator }): Authenticator {
  return {
    authenticate(credential, namedTenant) {
      const jwt = credential !== undefined && looksLikeJwt(credential);
      return (jwt ? parts.tokens : parts.keys).authenticate(credential, namedTenant);
    },
  };
}

/** A tenant name as the request sent it, cut for an error message (the name is the caller's text, of any length). */
export function shownTenant(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
