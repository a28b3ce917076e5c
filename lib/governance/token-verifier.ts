import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { egressRefusal, type Fetch } from '../egress/fetch.ts';
import { capBody } from '../registry/executors/bounded-body.ts';
import { TOKEN_ALGORITHMS, type OidcSettings } from '../registry/manifest/manifest.ts';
import type { Principal } from './api-keys.ts';
import { FetchBackoffError, fetchWithBackoff } from './fetch-backoff.ts';
import { DiscoveryError, discoverJwksUri } from './oidc-discovery.ts';

/** Longer than any real access token (Entra's with many groups stay under 8 KiB); refused before it is parsed. */
export const MAX_TOKEN_LENGTH = 8192;
/** Clocks of the gateway and the provider may differ this much (seconds) for `exp` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** A key set larger than this is not one. */
const MAX_JWKS_BYTES = 1024 * 1024;
const MAX_PRINCIPAL_LENGTH = 256;
const MAX_SCOPES = 100;

export type TokenVerification =
  | { ok: true; principal: Principal }
  /** `invalid`: the token is refused (401); `unavailable`: the issuer's keys cannot be had (503). */
  | { ok: false; reason: 'invalid' | 'unavailable'; message: string };

export interface TokenVerifierOptions {
  /** After a key set was fetched, how long an unknown `kid` waits before the next fetch (jose's cooldown; default 30 s). */
  cooldownMs?: number;
  /** How long a fetched key set is used before it is fetched again (default 10 min). */
  cacheMaxAgeMs?: number;
  /** After a failed fetch of the discovery document or key set, how long nothing is fetched (default 10 s; requests needing the keys get 503). */
  failureBackoffMs?: number;
  now?: () => number;
}

/**
 * Verifies bearer JWTs from one tenant's identity provider (manifest `identity.oidc`) with jose:
 * signature against the issuer's key set (fetched through the gateway's egress policy, cached,
 * re-fetched for an unknown `kid` at most once per cooldown), `iss`, `aud`, `exp` (required) and
 * `nbf`, asymmetric algorithms only. A verified token becomes a principal of this tenant only.
 */
export class TokenVerifier {
  readonly issuer: string;
  readonly #tenant: string;
  readonly #settings: OidcSettings;
  readonly #fetch: Fetch;
  readonly #options: TokenVerifierOptions;
  #keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(tenant: string, settings: OidcSettings, fetch: Fetch, options: TokenVerifierOptions = {}) {
    this.#tenant = tenant;
    this.#settings = settings;
    this.issuer = settings.issuer;
    this.#options = options;
    // The key set is never read whole into memory past its cap, however large the answer; a
    // failing provider is asked again only after a pause, however many tokens arrive meanwhile.
    const capped: Fetch = async (input, init) => capBody(await fetch(input, init), MAX_JWKS_BYTES);
    this.#fetch = fetchWithBackoff(capped, options.failureBackoffMs ?? 10_000, options.now);
  }

  async verify(token: string): Promise<TokenVerification> {
    if (token.length > MAX_TOKEN_LENGTH) return invalid(`the token is longer than ${MAX_TOKEN_LENGTH} characters`);
    let payload: JWTPayload;
    try {
      const keys = await this.#keySet();
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.#settings.issuer,
        audience: this.#settings.audience,
        algorithms: [...(this.#settings.algorithms ?? TOKEN_ALGORITHMS)],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      return this.#refusal(error);
    }
    return this.#principal(payload);
  }

  /** The remote key set, made once: from jwks_uri, or from the issuer's discovery document. */
  #keySet(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    const keys = this.#jwksUri().then((url) =>
      createRemoteJWKSet(url, {
        [customFetch]: (href, init) => this.#fetch(href, init),
        cooldownDuration: this.#options.cooldownMs ?? 30_000,
        cacheMaxAge: this.#options.cacheMaxAgeMs ?? 600_000,
        timeoutDuration: 5000,
      }),
    );
    // A failed discovery is tried again by the next request, not remembered.
    keys.catch(() => {
      if (this.#keys === keys) this.#keys = undefined;
    });
    this.#keys = keys;
    return keys;
  }

  async #jwksUri(): Promise<URL> {
    if (this.#settings.jwks_uri) return new URL(this.#settings.jwks_uri);
    return discoverJwksUri(this.#settings.issuer, this.#fetch, AbortSignal.timeout(5000));
  }

  #refusal(error: unknown): TokenVerification {
    // Every request that needs the keys tries to fetch them (jose shares one fetch between concurrent ones).
    const unavailable = keysUnavailable(error);
    if (unavailable) return { ok: false, reason: 'unavailable', message: unavailable };
    return invalid(describeRefusal(error, this.#settings));
  }

  #principal(payload: JWTPayload): TokenVerification {
    const claim = this.#settings.principal_claim ?? 'sub';
    const name = payload[claim];
    if (typeof name !== 'string' || name === '' || name.length > MAX_PRINCIPAL_LENGTH || /\p{Cc}/u.test(name)) {
      return invalid(`the token's "${claim}" claim must name the principal (a string of 1 to ${MAX_PRINCIPAL_LENGTH} characters)`);
    }
    const scopes = scopesOf(payload, this.#settings.scopes_claim);
    if (!scopes.ok) return invalid(scopes.message);
    return { ok: true, principal: { tenant: this.#tenant, principal: name, scopes: scopes.scopes, credential: this.#credential(), claims: payload } };
  }

  /** What the token was checked against: a grant made with it is bound to all of it (lib/connections/grant-proof.ts). */
  #credential(): Principal['credential'] {
    const { issuer, audience, jwks_uri } = this.#settings;
    return { kind: 'token', issuer, audience, ...(jwks_uri !== undefined ? { jwks_uri } : {}) };
  }
}

const invalid = (message: string): TokenVerification => ({ ok: false, reason: 'invalid', message });

/**
 * The scopes a token grants: the configured claim, or by default `scope` (RFC 9068, a
 * space-separated string) and then `scp` (Entra ID, Okta). A missing claim grants no scopes;
 * a claim of another shape is a malformed token.
 */
function scopesOf(payload: JWTPayload, configured: string | undefined): { ok: true; scopes: string[] } | { ok: false; message: string } {
  const claim = configured ?? (payload.scope === undefined && payload.scp !== undefined ? 'scp' : 'scope');
  const value = payload[claim];
  if (value === undefined) return { ok: true, scopes: [] };
  const scopes = typeof value === 'string' ? value.split(' ').filter(Boolean) : Array.isArray(value) && value.every((s) => typeof s === 'string') ? (value as string[]) : undefined;
  if (!scopes) return { ok: false, message: `the token's "${claim}" claim must be a space-separated string or an array of strings` };
  if (scopes.length > MAX_SCOPES || scopes.some((s) => s.length > 128)) return { ok: false, message: `the token's "${claim}" claim holds more than ${MAX_SCOPES} scopes or a scope longer than 128 characters` };
  return { ok: true, scopes: [...new Set(scopes)] };
}

/** Why the issuer's keys cannot be had (a 503: nothing is wrong with the token), or undefined. */
function keysUnavailable(error: unknown): string | undefined {
  const refused = egressRefusal(error);
  if (refused) return `cannot fetch the identity provider's keys: ${refused.message}`;
  if (error instanceof DiscoveryError || error instanceof FetchBackoffError) return `cannot fetch the identity provider's keys: ${error.message}`;
  if (error instanceof errors.JWKSTimeout) return "cannot fetch the identity provider's keys: the request timed out";
  if (error instanceof errors.JWKSInvalid) return "cannot use the identity provider's keys: its key set is not a JSON Web Key Set";
  // jose's own errors about the key set's HTTP answer, and network failures (TypeError from fetch).
  if (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC') return `cannot fetch the identity provider's keys: ${error.message}`;
  if (error instanceof TypeError || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))) return `cannot fetch the identity provider's keys: ${error.message}`;
  return undefined;
}

/** A refusal in words a caller can act on (jose's messages quote claim names; these name the fix). */
function describeRefusal(error: unknown, settings: OidcSettings): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired; get a new one from the identity provider';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf': return 'the token is not valid yet (nbf is in the future)';
      case 'iss': return `the token was not issued by this tenant's identity provider (${settings.issuer})`;
      case 'aud': return `the token is not meant for this gateway (its audience must include ${settings.audience})`;
      case 'exp': return 'the token has no expiry (exp); this gateway accepts only tokens that expire';
      default: return `the token's "${error.claim}" claim is not acceptable`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return `the token's signing algorithm is not allowed (allowed: ${(settings.algorithms ?? TOKEN_ALGORITHMS).join(', ')})`;
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the identity provider's key set matches the token (kid and alg)";
  if (error instanceof errors.JWKSMultipleMatchingKeys) return "the identity provider's key set has several keys for the token; it must name one with kid";
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  return 'the token is not a well-formed signed JWT';
}
