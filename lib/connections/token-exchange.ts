import { sha256Hex } from '../crypto/sha256.ts';
import type { ResolveSecret } from '../crypto/secrets.ts';
import type { Fetch } from '../egress/fetch.ts';
import { ToolError } from '../registry/errors.ts';
import type { ConnectionSettings } from '../registry/manifest/manifest.ts';
import type { GrantOwner } from './grant-store.ts';
import { ACCESS_TOKEN_TYPE, oauthClientOf, TOKEN_EXCHANGE_GRANT, tokenRequest } from './oauth-client.ts';
import { providerEndpoints } from './provider-metadata.ts';

/** An exchanged token is used until this long before it expires. */
const EXPIRY_MARGIN_MS = 30_000;
/** Without expires_in, an exchanged token is kept this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
const MAX_CACHED = 1000;

/** Exchanged tokens in this isolate's memory only (never stored): keyed by owner and a hash of the subject token, so a new sign-in gets its own. */
const cache = new Map<string, { token: string; until: number }>();

export interface ExchangeServices {
  fetch: Fetch;
  secrets: ResolveSecret;
  now: () => number;
}

/**
 * RFC 8693: the caller's own sign-in token (the tenant's identity provider issued it to the
 * caller) exchanged at the connection's token endpoint for one for the upstream's audience, no
 * consent page. Only a caller signed in with a token has one: an API key is refused.
 */
export async function exchangedToken(owner: GrantOwner, settings: ConnectionSettings, subjectToken: string | undefined, services: ExchangeServices): Promise<string> {
  if (!subjectToken) {
    throw new ToolError('forbidden', `connection "${owner.connection}" exchanges the caller's own sign-in token (RFC 8693): call with a bearer token from the tenant's identity provider, not an API key. Nothing was sent.`, { connection: owner.connection });
  }
  const key = `${owner.tenant}\n${owner.principal}\n${owner.connection}\n${await sha256Hex(subjectToken)}`;
  const now = services.now();
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.token;
  const endpoints = await providerEndpoints(settings, services.fetch, now);
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    ...(settings.audience ? { audience: settings.audience } : {}),
    ...(settings.resource ? { resource: settings.resource } : {}),
    ...(settings.scopes?.length ? { scope: settings.scopes.join(' ') } : {}),
  };
  const answer = await tokenRequest(services.fetch, endpoints.token_endpoint, oauthClientOf(settings, services.secrets), form);
  const lifetime = answer.expires_in ? answer.expires_in * 1000 - EXPIRY_MARGIN_MS : DEFAULT_LIFETIME_MS;
  if (cache.size >= MAX_CACHED) cache.clear();
  if (lifetime > 0) cache.set(key, { token: answer.access_token, until: now + lifetime });
  return answer.access_token;
}
