import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AuditRecorder } from '../audit/recorder.ts';
import { constantTimeEqual } from '../crypto/hmac.ts';
import type { SecretGrants } from '../crypto/secret-grants.ts';
import { sha256Hex } from '../crypto/sha256.ts';
import { tenantSecretResolver } from '../crypto/tenant-secrets.ts';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { Fetch } from '../egress/fetch.ts';
import type { ConnectionSettings } from '../registry/manifest/manifest.ts';
import type { Store } from '../stores/store.ts';
import { randomHandle } from '../crypto/base64url.ts';
import { auditConnection } from './connection-audit.ts';
import { callbackUrl, connectPath } from './connect-paths.ts';
import { connectPage } from './connect-page.ts';
import { forgetUse } from './first-use.ts';
import { describeProof, mayReplace, storedProof } from './grant-proof.ts';
import { saveConsent, takeConnectLink, takeConsent, CONSENT_TTL_MS, type Consent } from './flow-records.ts';
import { GrantStore, type GrantOwner } from './grant-store.ts';
import type { Keyring } from './keyring.ts';
import { authorizationUrl, oauthClientOf, OAuthError, pkcePair, tokenRequest } from './oauth-client.ts';
import { providerBinding } from './provider-binding.ts';
import { providerEndpoints, type ProviderEndpoints } from './provider-metadata.ts';

/** What the connect pages run on: the gateway's store, keys, egress and tenants. */
export interface ConnectServices {
  store: Store;
  keys?: Keyring;
  tenants: TenantDirectory;
  egress: Fetch;
  secretGrants: SecretGrants;
  env: Readonly<Record<string, string | undefined>>;
  audit?: AuditRecorder;
  publicOrigin?: string;
  now?: () => number;
}

const AGAIN = 'Ask the agent to send the call again: it answers with a new link.';

/** The browser that started a consent is the one that finishes it: a cookie per consent, only the callback path sees it. */
const bindingCookie = (state: string) => `toolgate_connect_${state.slice(0, 12)}`;

/** The connection's settings in the tenant's active manifest, and what its grants are bound to there. */
async function connectionOf(services: ConnectServices, owner: Pick<GrantOwner, 'tenant' | 'connection'>): Promise<{ settings: ConnectionSettings; binding: string } | undefined> {
  const manifest = (await services.tenants.runtime(owner.tenant))?.manifest;
  const connections = manifest?.connections;
  if (!connections || !Object.hasOwn(connections, owner.connection)) return undefined;
  return { settings: connections[owner.connection]!, binding: providerBinding(manifest, owner.connection) };
}

const samePlace = (a: Pick<GrantOwner, 'tenant' | 'connection'>, b: Pick<GrantOwner, 'tenant' | 'connection'>) => a.tenant === b.tenant && a.connection === b.connection;

/**
 * GET /connect/<tenant>/<connection>?link=…: takes the single-use link (bound to the principal
 * that was asked to connect), starts the consent (state, PKCE verifier and a browser binding kept
 * by the gateway) and sends the browser to the provider's authorization endpoint.
 */
export async function startConsent(c: Context, services: ConnectServices, place: Pick<GrantOwner, 'tenant' | 'connection'>): Promise<Response> {
  const now = (services.now ?? Date.now)();
  const owner = await takeConnectLink(services.store, c.req.query('link') ?? '');
  if (!owner || !samePlace(owner, place)) return connectPage(c, 410, 'This link does not work any more', `A connect link works once, for 10 minutes, for the person it was made for. ${AGAIN}`);
  const settings = (await connectionOf(services, owner))?.settings;
  if (!settings || settings.grant === 'token_exchange') return connectPage(c, 404, 'No such connection', `The tenant's manifest no longer declares "${owner.connection}" for users to connect.`);
  let endpoints: ProviderEndpoints;
  try {
    endpoints = await providerEndpoints(settings, services.egress, now);
  } catch (error) {
    return connectPage(c, 502, 'The provider cannot be reached', `${(error as Error).message}. ${AGAIN}`);
  }
  if (!endpoints.authorization_endpoint) return connectPage(c, 502, 'The provider has no consent page', `The provider's metadata names no authorization_endpoint; the tenant's manifest must name it.`);
  const origin = services.publicOrigin ?? new URL(c.req.url).origin;
  const state = randomHandle(32);
  const browser = randomHandle(32);
  const pkce = settings.pkce === false ? undefined : await pkcePair();
  const redirect_uri = callbackUrl(origin, owner);
  const consent: Consent = { ...owner, verifier: pkce?.verifier ?? '', browser: await sha256Hex(browser), redirect_uri };
  await saveConsent(services.store, state, consent, now);
  setCookie(c, bindingCookie(state), browser, { path: `${connectPath(owner)}/callback`, httpOnly: true, secure: origin.startsWith('https:'), sameSite: 'Lax', maxAge: CONSENT_TTL_MS / 1000 });
  const url = authorizationUrl(endpoints.authorization_endpoint, {
    // The tenant's extra parameters first: none of them can replace the flow's own.
    ...settings.authorization_params,
    response_type: 'code',
    client_id: settings.client_id,
    redirect_uri,
    scope: settings.scopes?.join(' '),
    state,
    ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: 'S256' } : {}),
    resource: settings.resource,
  });
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(url.href, 302);
}

/** Why a callback is refused: what the user reads. */
function refusal(c: Context, title: string, message: string) {
  return connectPage(c, 400, title, `${message} Nothing was stored. ${AGAIN}`);
}

/**
 * GET /connect/<tenant>/<connection>/callback: the provider's redirect. The state must name a
 * consent this gateway started, once, from this browser; `iss` must be the connection's issuer
 * (RFC 9207); the code is redeemed with the consent's PKCE verifier, and the grant is stored,
 * sealed, for the principal the link was made for.
 */
export async function finishConsent(c: Context, services: ConnectServices, place: Pick<GrantOwner, 'tenant' | 'connection'>): Promise<Response> {
  const now = (services.now ?? Date.now)();
  const state = c.req.query('state') ?? '';
  const consent = await takeConsent(services.store, state);
  if (!consent || !samePlace(consent, place)) return refusal(c, 'This sign-in is not one toolgate started', 'The answer names no consent under way here (it was already used, expired, or never started).');
  const browser = getCookie(c, bindingCookie(state));
  deleteCookie(c, bindingCookie(state), { path: `${connectPath(consent)}/callback` });
  if (!browser || !constantTimeEqual(await sha256Hex(browser), consent.browser)) return refusal(c, 'This sign-in was started in another browser', 'Finish the consent in the browser that opened the connect link.');
  const declared = await connectionOf(services, consent);
  if (!declared) return refusal(c, 'No such connection', `The tenant's manifest no longer declares "${consent.connection}".`);
  const { settings, binding } = declared;
  const endpoints = await providerEndpoints(settings, services.egress, now).catch(() => undefined);
  if (!endpoints) return connectPage(c, 502, 'The provider cannot be reached', AGAIN);
  const iss = c.req.query('iss');
  if (endpoints.issuer !== undefined && (iss !== undefined ? iss !== endpoints.issuer : endpoints.iss_required)) {
    return refusal(c, 'The answer came from another provider', `It says it is from ${JSON.stringify((iss ?? '(no iss)').slice(0, 200))}, not ${endpoints.issuer} (RFC 9207 mix-up defence).`);
  }
  const error = c.req.query('error');
  if (error !== undefined) return refusal(c, 'Access was not granted', `The provider answered "${error.slice(0, 100)}"${c.req.query('error_description') ? `: ${c.req.query('error_description')!.slice(0, 300)}` : ''}.`);
  const code = c.req.query('code');
  if (!code) return refusal(c, 'The answer carries no code', 'The provider sent neither a code nor an error.');
  if (!services.keys) return connectPage(c, 503, 'This gateway cannot hold grants', 'The operator sets TOOLGATE_CONNECTION_KEYS.');
  const owner = { tenant: consent.tenant, principal: consent.principal, connection: consent.connection };
  const proof = storedProof(consent.proof);
  if (!proof) return refusal(c, 'This sign-in is not one toolgate started', 'The consent names no proof of who asked for it (it was started before this gateway version).');
  const grants = new GrantStore(services.store, services.keys);
  // Checked again here: the user may have connected after this link was made.
  const held = (await grants.info(owner))?.proof;
  if (!mayReplace(held, proof)) return refusal(c, 'This name belongs to a signed-in user', `"${owner.connection}" of ${owner.principal} was connected by ${describeProof(held!)}; a call made with an API key cannot replace it.`);
  try {
    const client = oauthClientOf(settings, tenantSecretResolver(owner.tenant, services.secretGrants, services.env));
    const answer = await tokenRequest(services.egress, endpoints.token_endpoint, client, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: consent.redirect_uri,
      ...(consent.verifier ? { code_verifier: consent.verifier } : {}),
      ...(settings.resource ? { resource: settings.resource } : {}),
    });
    const tokens = { access_token: answer.access_token, ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}) };
    const info = await grants.save(owner, binding, proof, tokens, { ...(answer.expires_in ? { token_expires_at: now + answer.expires_in * 1000 } : {}), ...(answer.scope ? { scope: answer.scope } : {}) }, now);
    // A new grant: its first use is ahead again (approval_on_first_use).
    await forgetUse(services.store, owner);
    await auditConnection(services.audit, 'connection.granted', owner, owner.principal, { grant_id: info.grant_id, refreshable: info.refreshable, ...(info.scope ? { scope: info.scope } : {}) });
  } catch (failure) {
    const said = failure instanceof OAuthError ? `the provider answered ${failure.message}` : (failure as Error).message;
    return refusal(c, 'The provider did not accept the code', `${said}.`);
  }
  return connectPage(c, 200, 'Connected', `"${owner.connection}" is connected for ${owner.principal}. You can close this page; the agent's next call uses it.`);
}
