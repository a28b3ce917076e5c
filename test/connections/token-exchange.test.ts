import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';
import { startOAuthServer, TOKEN_EXCHANGE, type OAuthServer } from '../support/oauth-server.ts';

/**
 * RFC 8693 connections: the caller signs in with a token from the tenant's identity provider (a
 * loopback issuer), and a tool acting as that caller sends a token the connection's authorization
 * server (oidc-provider on loopback, with a token-exchange grant) issued for the upstream in
 * exchange for it: no consent page.
 */
const AUDIENCE = 'https://tools.acme.example/mcp';
const RESOURCE = 'https://crm.acme.example/';
let idp: LocalIssuer;
let oauth: OAuthServer;
let upstream: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const jwks = await (await fetch(idp.jwksUri)).json();
  oauth = await startOAuthServer({ redirectUris: ['http://127.0.0.1/unused'], resource: RESOURCE, accessTokenTtl: 300, subjectIssuer: { jwks, issuer: idp.issuer, audience: AUDIENCE } });
  upstream = await startTestServer(async (request, response) => {
    try {
      const token = await oauth.verify((request.headers.authorization ?? '').replace(/^Bearer /, ''));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(token));
    } catch (error) {
      response.writeHead(401).end((error as Error).message);
    }
  });
  gw = await testGateway(
    [validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'deny', execute: 'deny' },
      identity: { oidc: { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri } },
      connections: { crm: { grant: 'token_exchange', issuer: oauth.issuer, client_id: oauth.clientId, client_secret: 'env:ACME_IDP_SECRET', resource: RESOURCE, scopes: ['read'] }, github: { authorization_endpoint: 'https://github.com/login/oauth/authorize', token_endpoint: 'https://github.com/login/oauth/access_token', client_id: 'Iv1.x' } },
      tools: [{ name: 'crm_whoami', description: 'whose token reached the CRM', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${upstream.url}/whoami`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'crm' } } },
        { name: 'gh_whoami', description: 'whose GitHub token reached it', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${upstream.url}/gh`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'github' } } }],
    })],
    { tg_agent: { tenant: 'acme', principal: 'agent' } },
    // No TOOLGATE_CONNECTION_KEYS: a token exchange stores nothing.
    { env: { TOOLGATE_TENANT_SECRETS: 'acme:ACME_IDP_SECRET,ACME_TOOL_SECRET', ACME_IDP_SECRET: oauth.clientSecret, ACME_TOOL_SECRET: 'hmac' } },
  );
});

afterAll(async () => {
  await Promise.all([idp?.close(), oauth?.close(), upstream?.close()]);
});

let calls = 0;
async function call(credential: string, name = 'crm_whoami') {
  const response = await gw.request('/v1/dispatch', { key: credential, headers: { 'x-toolgate-tenant': 'acme' }, json: { thread_id: 'th-exchange', calls: [{ call_id: `x${calls++}`, name, arguments: {} }] } });
  expect(response.status).toBe(200);
  return (await response.json()).results[0];
}

describe('token exchange connections (RFC 8693)', () => {
  it('sends the caller\'s own identity to the upstream, exchanged for its audience, and reuses the exchanged token until it expires', async () => {
    const alice = await idp.sign({ sub: 'alice' });
    const first = await call(alice);
    expect(first.status).toBe('ok');
    expect(JSON.parse(first.content)).toMatchObject({ sub: 'alice', aud: RESOURCE });
    expect((await call(alice)).status).toBe('ok');
    expect(oauth.tokenRequests).toEqual([TOKEN_EXCHANGE]);
    const bob = await call(await idp.sign({ sub: 'bob' }));
    expect(JSON.parse(bob.content)).toMatchObject({ sub: 'bob' });
    expect(oauth.tokenRequests).toEqual([TOKEN_EXCHANGE, TOKEN_EXCHANGE]);
  });

  it('an API key has no identity to exchange: refused before anything is sent', async () => {
    const before = upstream.requests.length;
    expect(await call('tg_agent')).toMatchObject({ status: 'forbidden', error: { code: 'forbidden', details: { connection: 'crm' } } });
    expect(upstream.requests).toHaveLength(before);
  });

  it('without TOOLGATE_CONNECTION_KEYS a consent connection holds no grants: unavailable, said so, nothing sent', async () => {
    const before = upstream.requests.length;
    const result = await call(await idp.sign({ sub: 'alice' }), 'gh_whoami');
    expect(result).toMatchObject({ status: 'unavailable', error: { details: { connection: 'github' } } });
    expect(result.content).toContain('TOOLGATE_CONNECTION_KEYS');
    expect(upstream.requests).toHaveLength(before);
  });
});
