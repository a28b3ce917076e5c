import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JSONWebKeySet } from 'jose';
import Provider, { errors } from 'oidc-provider';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export interface OAuthServerOptions {
  /** The gateway's callback URLs registered for the client. */
  redirectUris: string[];
  /** The audience (resource) access tokens are issued for: the upstreams check it. */
  resource: string;
  /** Access token lifetime in seconds. */
  accessTokenTtl: number;
  /** Subject tokens a token exchange accepts: this issuer's key set, issuer and audience (the tenant's sign-in provider). */
  subjectIssuer?: { jwks: JSONWebKeySet; issuer: string; audience: string };
}

/** A real OAuth 2.0 / OIDC authorization server (oidc-provider) on 127.0.0.1 for the connection tests. */
export interface OAuthServer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Verifies an access token it issued (as an upstream would): its subject, or throws. */
  verify(token: string): Promise<{ sub: string; aud: unknown; gty?: unknown }>;
  /** Every token endpoint request's grant_type, in order; revocations as "revoke". */
  tokenRequests: string[];
  close(): Promise<void>;
}

const SCOPES = ['openid', 'offline_access', 'repo', 'read', 'write'];

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The consent page: who signs in (the test types a name), Allow or Deny. Nothing loaded from elsewhere. */
function interactionPage(res: ServerResponse, uid: string, client: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Sign in</title></head><body>
<h1>Allow ${escape(client)} to act as you?</h1>
<form method="post" action="/interaction/${escape(uid)}">
<input name="login" id="login" autocomplete="off">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form></body></html>`);
}

export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signing = await generateKeyPair('ES256', { extractable: true });
  const publicJwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'as', alg: 'ES256', use: 'sig' }] };
  const clientId = 'toolgate';
  const clientSecret = 'toolgate-client-secret-0123456789abcdef';
  const tokenRequests: string[] = [];
  const resourceServer = { scope: 'repo read write', audience: options.resource, accessTokenFormat: 'jwt', accessTokenTTL: options.accessTokenTtl, jwt: { sign: { alg: 'ES256' } } };

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, response_types: ['code'],
      grant_types: ['authorization_code', 'refresh_token', ...(options.subjectIssuer ? [TOKEN_EXCHANGE] : [])], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256',
    }],
    pkce: { required: () => true },
    features: {
      revocation: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: { enabled: true, defaultResource: () => options.resource, useGrantedResource: () => true, getResourceServerInfo: () => resourceServer },
    },
    jwks: { keys: [{ ...(await exportJWK(signing.privateKey)), kid: 'as', alg: 'ES256', use: 'sig' }] },
    scopes: SCOPES,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: { AccessToken: options.accessTokenTtl, RefreshToken: 3600, AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600 },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>error</title><p id="error">${escape(out.error ?? '')}: ${escape(out.error_description ?? '')}</p>`;
    },
  });
  provider.on('grant.success', (ctx: { oidc: { params: { grant_type: string } } }) => tokenRequests.push(ctx.oidc.params.grant_type));
  provider.on('grant.error', (ctx: { oidc: { params?: { grant_type?: string } } }) => tokenRequests.push(`${ctx.oidc.params?.grant_type ?? '?'}:error`));

  if (options.subjectIssuer) {
    const subject = options.subjectIssuer;
    const subjectKeys = createLocalJWKSet(subject.jwks);
    // RFC 8693: a token the tenant's sign-in provider issued to the caller, exchanged for one for the resource.
    provider.registerGrantType(TOKEN_EXCHANGE, async (ctx: { oidc: { params: Record<string, string | undefined>; client: unknown; provider: { AccessToken: new (init: Record<string, unknown>) => { resourceServer: unknown; save(): Promise<string>; expiration: number; scope: string } } }; body: unknown }) => {
      const params = ctx.oidc.params;
      if (params.subject_token_type !== 'urn:ietf:params:oauth:token-type:access_token') throw new errors.InvalidRequest('unsupported subject_token_type');
      let sub: string | undefined;
      try {
        ({ payload: { sub } } = await jwtVerify(params.subject_token ?? '', subjectKeys, { issuer: subject.issuer, audience: subject.audience }));
      } catch (error) {
        throw new errors.InvalidGrant(`subject_token is not valid: ${(error as { code?: string }).code ?? 'invalid'}`);
      }
      const token = new ctx.oidc.provider.AccessToken({ accountId: sub, client: ctx.oidc.client, gty: 'token_exchange', scope: params.scope ?? 'read' });
      token.resourceServer = { ...resourceServer, audience: params.audience ?? options.resource };
      const value = await token.save();
      ctx.body = { access_token: value, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: token.expiration, scope: token.scope };
    }, ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'], ['audience', 'resource']);
  }

  type Details = { prompt: { name: string; details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> } }; params: { client_id: string }; session: { accountId: string }; grantId?: string };
  async function finishConsent(req: IncomingMessage, res: ServerResponse, details: Details): Promise<void> {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/token/revocation' && req.method === 'POST') tokenRequests.push('revoke');
    const interaction = /^\/interaction\/([\w-]+)$/.exec(path);
    if (!interaction) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      // Consent follows the sign-in the user already allowed: granted at once, for what the request asks.
      if (details.prompt.name === 'consent') return finishConsent(req, res, details);
      if (req.method === 'GET') return interactionPage(res, interaction[1]!, details.params.client_id);
      const form = await readForm(req);
      if (form.get('decision') !== 'allow') {
        await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user denied access' }, { mergeWithLastSubmission: false });
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: form.get('login') ?? '' } }, { mergeWithLastSubmission: false });
    })().catch((error: Error) => res.writeHead(500).end(error.message));
  });

  const keys = createLocalJWKSet(publicJwks);
  return {
    issuer,
    clientId,
    clientSecret,
    tokenRequests,
    async verify(token) {
      const { payload } = await jwtVerify(token, keys, { issuer, audience: options.resource });
      return { sub: String(payload.sub), aud: payload.aud, gty: payload.gty };
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
