import type { ResolveSecret } from '../crypto/secrets.ts';
import type { Fetch } from '../egress/fetch.ts';
import type { ConnectionSettings } from '../registry/manifest/manifest.ts';
import { readBoundedText } from '../registry/executors/bounded-body.ts';
import { randomHandle, toBase64url } from '../crypto/base64url.ts';

/** A token endpoint's answer is a few kilobytes; more is not read. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/**
 * The longest the gateway waits for one provider request, answer read included: a provider that
 * never answers (or drips its answer) cannot hold a connect page, a publish or a refresh lease
 * (15 s, user-tokens.ts) open; shorter than that lease, so two refreshes of one grant never overlap.
 */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** The caller's signal (if any), and PROVIDER_TIMEOUT_MS whatever it says. */
export function providerSignal(signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(PROVIDER_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** A provider request that ran out of PROVIDER_TIMEOUT_MS, said as such (a runtime says only "aborted"). */
export function providerTimeout(error: unknown, url: string | URL): unknown {
  if ((error as Error | undefined)?.name !== 'TimeoutError') return error;
  return new Error(`the provider (${String(url).slice(0, 200)}) did not answer within ${PROVIDER_TIMEOUT_MS / 1000} s`);
}

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** How the gateway authenticates as the connection's OAuth client. */
export interface OAuthClient {
  client_id: string;
  client_secret?: string;
  auth: 'client_secret_basic' | 'client_secret_post';
}

/** The connection's OAuth client, its secret resolved from the tenant's grants. */
export function oauthClientOf(settings: ConnectionSettings, secrets: ResolveSecret): OAuthClient {
  return {
    client_id: settings.client_id,
    ...(settings.client_secret ? { client_secret: secrets(settings.client_secret) } : {}),
    auth: settings.client_auth ?? 'client_secret_basic',
  };
}

/** A token endpoint said no (RFC 6749 §5.2 `error`), or answered something that is not a token response. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;

  constructor(error: string, description: string | undefined, status: number) {
    super(`${error}${description ? `: ${description.slice(0, 300)}` : ''}`);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }

  /** The grant behind the request is gone for good (revoked, expired, used twice): only the user can make a new one. GitHub says bad_refresh_token. */
  get grantGone(): boolean {
    return this.error === 'invalid_grant' || this.error === 'bad_refresh_token' || this.error === 'bad_verification_code';
  }
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  issued_token_type?: string;
}

/** PKCE (RFC 7636) S256: the verifier stays with the gateway, the challenge goes to the provider. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomHandle(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: toBase64url(digest) };
}

/** The authorization request URL: the endpoint's own query kept, the parameters set over it. */
export function authorizationUrl(endpoint: string, params: Record<string, string | undefined>): URL {
  const url = new URL(endpoint);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

/**
 * One token endpoint request (code, refresh, token exchange) through the gateway's egress fetch,
 * the answer read bounded. An `error` is an OAuthError even when it comes with HTTP 200 (GitHub
 * answers its errors so).
 */
export async function tokenRequest(fetch: Fetch, endpoint: string, client: OAuthClient, form: Record<string, string>, signal?: AbortSignal): Promise<TokenResponse> {
  const body = new URLSearchParams(form);
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'toolgate' };
  addClientAuth(headers, body, client);
  let response: Response;
  let text: string | undefined;
  try {
    response = await fetch(endpoint, { method: 'POST', headers, body: body.toString(), signal: providerSignal(signal) });
    text = await readBoundedText(response, MAX_TOKEN_RESPONSE_BYTES);
  } catch (error) {
    throw providerTimeout(error, endpoint);
  }
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(text ?? '') as Record<string, unknown>;
  } catch {
    throw new OAuthError('invalid_response', `the token endpoint answered HTTP ${response.status}, not JSON`, response.status);
  }
  if (typeof answer.error === 'string') throw new OAuthError(answer.error, typeof answer.error_description === 'string' ? answer.error_description : undefined, response.status);
  if (!response.ok) throw new OAuthError('invalid_response', `the token endpoint answered HTTP ${response.status}`, response.status);
  if (typeof answer.access_token !== 'string' || answer.access_token === '' || typeof answer.token_type !== 'string') {
    throw new OAuthError('invalid_response', 'the token endpoint answered no access_token and token_type', response.status);
  }
  if (answer.token_type.toLowerCase() !== 'bearer') throw new OAuthError('invalid_response', `token_type "${answer.token_type.slice(0, 40)}" is not Bearer`, response.status);
  return {
    access_token: answer.access_token,
    token_type: answer.token_type,
    ...(typeof answer.expires_in === 'number' && answer.expires_in > 0 ? { expires_in: answer.expires_in } : {}),
    ...(typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? { refresh_token: answer.refresh_token } : {}),
    ...(typeof answer.scope === 'string' ? { scope: answer.scope } : {}),
    ...(typeof answer.issued_token_type === 'string' ? { issued_token_type: answer.issued_token_type } : {}),
  };
}

/** RFC 7009 revocation; true when the provider accepted it (200). A failure is reported, never thrown past the caller's choice. */
export async function revokeToken(fetch: Fetch, endpoint: string, client: OAuthClient, token: string, hint: 'refresh_token' | 'access_token', signal?: AbortSignal): Promise<boolean> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'toolgate' };
  addClientAuth(headers, body, client);
  const response = await fetch(endpoint, { method: 'POST', headers, body: body.toString(), signal: providerSignal(signal) });
  await response.body?.cancel().catch(() => {});
  return response.status === 200;
}

function addClientAuth(headers: Record<string, string>, body: URLSearchParams, client: OAuthClient): void {
  if (client.auth === 'client_secret_basic' && client.client_secret !== undefined) {
    // RFC 6749 §2.3.1: both form-urlencoded before they are joined.
    const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
    headers.authorization = `Basic ${btoa(`${encode(client.client_id)}:${encode(client.client_secret)}`)}`;
    return;
  }
  body.set('client_id', client.client_id);
  if (client.client_secret !== undefined) body.set('client_secret', client.client_secret);
}
