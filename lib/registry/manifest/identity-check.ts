import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject } from '../json.ts';

/** Plain http is only for an issuer on this machine (development, tests): elsewhere a key set could be swapped in transit. */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function urlProblem(value: unknown, what: string): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined; // the schema says what is wrong
  const url = new URL(value);
  if (url.username || url.password) return `${what} must not carry a user name or password`;
  if (url.hash) return `${what} must not have a #fragment`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    return `${what} must use https (plain http is accepted only for 127.0.0.1, [::1] or localhost): tokens are only as safe as the way their keys are fetched`;
  }
  return undefined;
}

/**
 * What the schema cannot say about `identity.oidc`: the issuer and key-set URLs must be https
 * and plain (an issuer identifier also has no query, RFC 8414). Where the gateway may connect is
 * the egress check's (manifest-confinement.ts).
 */
export function checkIdentity(identity: unknown): ManifestProblem[] {
  if (!isJsonObject(identity) || !isJsonObject(identity.oidc)) return [];
  const oidc = identity.oidc;
  const problems: ManifestProblem[] = [];
  const issuer = urlProblem(oidc.issuer, 'the issuer');
  if (issuer) problems.push({ path: '$.identity.oidc.issuer', message: issuer });
  else if (typeof oidc.issuer === 'string' && URL.canParse(oidc.issuer) && new URL(oidc.issuer).search) {
    problems.push({ path: '$.identity.oidc.issuer', message: 'the issuer must not have a ?query: write it exactly as the tokens\' "iss" claim' });
  }
  const jwks = urlProblem(oidc.jwks_uri, 'jwks_uri');
  if (jwks) problems.push({ path: '$.identity.oidc.jwks_uri', message: jwks });
  return problems;
}
