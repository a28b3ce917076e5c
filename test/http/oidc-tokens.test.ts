import { base64url, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const AUDIENCE = 'https://tools.example.com/mcp';
let idpA: LocalIssuer;
let idpB: LocalIssuer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const tools = [
  { name: 'echo', executor: { kind: 'builtin' } },
  { name: 'billing', scopes: ['billing:read'], executor: { kind: 'builtin', name: 'echo' } },
  { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' } },
];
const policy = { read: 'grant', write: 'review', execute: 'deny' } as const;

beforeAll(async () => {
  idpA = await startLocalIssuer({ audience: AUDIENCE });
  idpB = await startLocalIssuer({ audience: AUDIENCE });
  gw = await testGateway(
    [
      validManifest({ tenant: 'acme', policy, tools, identity: { oidc: { issuer: idpA.issuer, audience: AUDIENCE, jwks_uri: idpA.jwksUri } } }),
      // No jwks_uri: read from the issuer's discovery document.
      validManifest({ tenant: 'beta', policy, tools, identity: { oidc: { issuer: idpB.issuer, audience: AUDIENCE } } }),
      validManifest({ tenant: 'gamma', policy, tools }),
    ],
    { auditor: { tenant: 'acme', principal: 'auditor', scopes: ['audit:read'] }, keyholder: { tenant: 'acme', principal: 'keyholder', scopes: [] } },
  );
});
afterAll(async () => {
  await idpA.close();
  await idpB.close();
});

const dispatch = (token: string, tenant: string | undefined, calls: unknown[], thread_id = 'th') =>
  gw.request('/v1/dispatch', { key: token, json: { thread_id, calls }, headers: tenant ? { 'x-toolgate-tenant': tenant } : {} });
const mcp = (path: string, token: string | undefined, message: unknown, headers: Record<string, string> = {}) =>
  gw.request(path, { key: token, json: message, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers } });
const toolsCall = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { text: 'hi' } } });
const challenge = (response: Response) => response.headers.get('www-authenticate');

describe('bearer tokens from the tenant identity provider', () => {
  it('a good token works for /v1/tools, /v1/dispatch, /mcp/<tenant> and /mcp', async () => {
    const token = await idpA.sign({ sub: 'user-1', scope: 'billing:read' });
    const listed = await gw.request('/v1/tools?tenant=acme', { key: token });
    expect(listed.status).toBe(200);
    expect((await listed.json()).tools.map((t: { name: string }) => t.name)).toContain('billing');
    const body = await (await dispatch(token, 'acme', [{ call_id: 'c1', name: 'billing', arguments: { text: 'paid' } }])).json();
    expect(body.results[0]).toMatchObject({ status: 'ok', content: 'paid' });
    const viaPath = await mcp('/mcp/acme', token, toolsCall('billing'));
    expect(viaPath.status).toBe(200);
    expect((await viaPath.json()).result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hi' }] });
    const viaHeader = await mcp('/mcp', token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'x-toolgate-tenant': 'acme' });
    expect((await viaHeader.json()).result.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['echo', 'billing', 'publish']));
  });

  it('a token without a named tenant is a 401 saying how to name it', async () => {
    const token = await idpA.sign({ sub: 'user-1' });
    const response = await gw.request('/v1/tools', { key: token });
    expect(response.status).toBe(401);
    expect((await response.json()).error.message).toBe('a token from an identity provider signs in to one tenant only: name the tenant: call /mcp/<tenant>, add ?tenant=<tenant>, or send "X-Toolgate-Tenant: <tenant>"');
    expect(challenge(response)).toMatch(/^Bearer error="invalid_token", error_description="a token from/);
  });

  it('refuses forged, stale and misdirected tokens with 401 invalid_token and a reason', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { publicKey } = await generateKeyPair('RS256');
    const pem = await exportSPKI(publicKey);
    const header = (h: object) => base64url.encode(JSON.stringify(h));
    const claims = base64url.encode(JSON.stringify({ iss: idpA.issuer, aud: AUDIENCE, sub: 'mallory', exp: now + 300 }));
    const cases: Array<[string, string, string]> = [
      ['expired', await idpA.sign({ sub: 'u' }, { expiresInSeconds: -120 }), 'invalid token: the token has expired; get a new one from the identity provider'],
      ['not yet valid', await idpA.sign({ sub: 'u', nbf: now + 600 }), 'invalid token: the token is not valid yet (nbf is in the future)'],
      ['wrong audience', await idpA.sign({ sub: 'u', aud: 'https://other.example.com' }), `invalid token: the token is not meant for this gateway (its audience must include ${AUDIENCE})`],
      ['wrong issuer', await idpA.sign({ sub: 'u', iss: 'https://evil.example.com' }), `invalid token: the token was not issued by this tenant's identity provider (${idpA.issuer})`],
      ['wrong signature', await idpA.sign({ sub: 'u' }, { foreignKey: true }), 'invalid token: the token signature does not verify'],
      ['alg none', `${header({ alg: 'none', typ: 'JWT' })}.${claims}.`, 'invalid token: the token\'s signing algorithm is not allowed (allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)'],
      ['not a JWT at all', 'abc.def.ghi', 'invalid token: the token is not a well-formed signed JWT'],
      ['HS256 keyed with the public key', await new SignJWT({ iss: idpA.issuer, aud: AUDIENCE, sub: 'mallory', exp: now + 300 }).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(new TextEncoder().encode(pem)), 'invalid token: the token\'s signing algorithm is not allowed (allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)'],
      ['unknown kid', await idpA.sign({ sub: 'u' }, { kid: 'nobody-knows' }), "invalid token: no key of the identity provider's key set matches the token (kid and alg)"],
      ['no expiry', await idpA.sign({ sub: 'u', exp: undefined }), 'invalid token: the token has no expiry (exp); this gateway accepts only tokens that expire'],
      ['no principal claim', await idpA.sign({}), `invalid token: the token's "sub" claim must name the principal (a string of 1 to 256 characters)`],
      ['a scope claim of the wrong shape', await idpA.sign({ sub: 'u', scope: 42 }), `invalid token: the token's "scope" claim must be a space-separated string or an array of strings`],
      ['oversized', `${header({ alg: 'RS256', kid: 'key-1' })}.${base64url.encode('x'.repeat(9000))}.c2ln`, 'invalid token: the token is longer than 8192 characters'],
    ];
    for (const [what, token, message] of cases) {
      const response = await gw.request('/v1/tools?tenant=acme', { key: token });
      expect({ what, status: response.status, message: (await response.json()).error.message }).toEqual({ what, status: 401, message });
      expect(challenge(response), what).toMatch(/^Bearer error="invalid_token", error_description="/);
    }
  });

  it("a token of tenant A's issuer never signs in to tenant B; a tenant without identity settings looks like an unknown one", async () => {
    const token = await idpA.sign({ sub: 'user-1', scope: 'billing:read' });
    const beta = await gw.request('/v1/tools?tenant=beta', { key: token });
    expect(beta.status).toBe(401);
    // B's key set has a key of the same kid, so the signature is what fails (it is checked before any claim).
    expect((await beta.json()).error.message).toBe('invalid token: the token signature does not verify');
    // Even a token A signs with B's issuer and audience written in it is A's signature: refused.
    const posing = await gw.request('/v1/tools?tenant=beta', { key: await idpA.sign({ sub: 'u', iss: idpB.issuer }) });
    expect(posing.status).toBe(401);
    const gamma = await (await gw.request('/v1/tools?tenant=gamma', { key: token })).json();
    const unknown = await (await gw.request('/v1/tools?tenant=nosuch', { key: token })).json();
    expect(gamma.error.message).toBe('tenant "gamma" accepts no tokens from an identity provider (no such tenant, or its manifest sets no identity.oidc)');
    expect(unknown.error.message).toBe(gamma.error.message.replace('gamma', 'nosuch'));
    // B's own token (keys found through B's discovery document) works for B only.
    const betaToken = await idpB.sign({ sub: 'b-user' });
    expect((await gw.request('/v1/tools?tenant=beta', { key: betaToken })).status).toBe(200);
    expect((await gw.request('/v1/tools?tenant=acme', { key: betaToken })).status).toBe(401);
  });

  it('scopes come from "scope" (string) or "scp" (array); a token without scopes gets only what needs none', async () => {
    const call = [{ call_id: 'b1', name: 'billing', arguments: { text: 'x' } }];
    const none = await (await dispatch(await idpA.sign({ sub: 'u' }), 'acme', call, 'scopes-1')).json();
    expect(none.results[0]).toMatchObject({ status: 'forbidden', error: { details: { missing_scope: 'billing:read' } } });
    const echo = await (await dispatch(await idpA.sign({ sub: 'u' }), 'acme', [{ call_id: 'e1', name: 'echo', arguments: { text: 'ok' } }], 'scopes-1')).json();
    expect(echo.results[0].status).toBe('ok');
    const scp = await (await dispatch(await idpA.sign({ sub: 'u', scp: ['billing:read'] }), 'acme', call, 'scopes-2')).json();
    expect(scp.results[0].status).toBe('ok');
    // Operator routes need their scope as much for tokens as for keys.
    expect((await gw.request('/v1/audit?thread_id=th&tenant=acme', { key: await idpA.sign({ sub: 'u', scope: 'billing:read' }) })).status).toBe(403);
  });

  it('the key set is fetched once and cached; an unknown kid refetches at most once per cooldown', async () => {
    const before = idpA.jwksFetches;
    for (let i = 0; i < 5; i++) expect((await gw.request('/v1/tools?tenant=acme', { key: await idpA.sign({ sub: `u${i}` }) })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await gw.request('/v1/tools?tenant=acme', { key: await idpA.sign({ sub: 'u' }, { kid: `forged-${i}` }) })).status).toBe(401);
    // Earlier tests fetched the set (and refetched for one unknown kid); nothing here hit the issuer more than once.
    expect(idpA.jwksFetches - before).toBeLessThanOrEqual(1);
  });

  it('the token principal feeds approvals: it cannot approve its own parked call; another approver can; audit names both', async () => {
    const requester = await idpA.sign({ sub: 'user-1', scope: 'approvals:decide' });
    const approver = await idpA.sign({ sub: 'user-2', scope: 'approvals:decide' });
    const parked = (await (await dispatch(requester, 'acme', [{ call_id: 'p1', name: 'publish', arguments: { text: 'ship it' } }], 'approve-th')).json()).results[0];
    expect(parked.status).toBe('pending_approval');
    const id = parked.error.details.approval_id;
    const decide = (token: string) => gw.request(`/v1/approvals/${id}?tenant=acme`, { key: token, json: { decision: 'approve' } });
    const self = await decide(requester);
    expect(self.status).toBe(403);
    expect((await self.json()).error.message).toBe('the principal that requested a call cannot approve it (nor can a key it minted or that minted its key); ask another approver');
    const other = await decide(approver);
    expect(other.status).toBe(200);
    expect(await other.json()).toMatchObject({ approval: { state: 'executed', requested_by: 'user-1', decided_by: 'user-2' }, result: { status: 'ok', content: 'ship it' } });
    const audit = await (await gw.request('/v1/audit?thread_id=approve-th', { key: 'auditor' })).json();
    const who = audit.envelopes.map((e: { type: string; principal: string }) => [e.type, e.principal]);
    expect(who).toEqual(expect.arrayContaining([['tool.call.request', 'user-1'], ['tool.call.approval', 'user-2']]));
  });
});

describe('MCP authorization discovery', () => {
  it('401s on /mcp/<tenant> point to the protected-resource metadata; /v1 401s say Bearer', async () => {
    const bare = await mcp('/mcp/acme', undefined, toolsCall('echo'));
    expect(bare.status).toBe(401);
    expect(challenge(bare)).toBe('Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp/acme"');
    const refused = await mcp('/mcp/acme', await idpA.sign({ sub: 'u' }, { expiresInSeconds: -120 }), toolsCall('echo'));
    expect(challenge(refused)).toBe('Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp/acme", error="invalid_token", error_description="invalid token: the token has expired; get a new one from the identity provider"');
    // Every tenant path gets the same challenge: a 401 does not tell which tenants take tokens.
    expect(challenge(await mcp('/mcp/nosuch', undefined, toolsCall('echo')))).toBe('Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp/nosuch"');
    // A path segment that cannot be a tenant id is never echoed into the header.
    expect(challenge(await mcp('/mcp/Evil%22%0d%0aX', undefined, toolsCall('echo')))).toBe('Bearer');
    const v1 = await gw.request('/v1/tools');
    expect(v1.status).toBe(401);
    expect(challenge(v1)).toBe('Bearer');
    expect(challenge(await gw.request('/v1/tools', { key: 'tg_wrong' }))).toBe('Bearer error="invalid_token"');
  });

  it('serves RFC 9728 metadata for a tenant with identity settings, and the same 404 otherwise', async () => {
    const response = await gw.request('/.well-known/oauth-protected-resource/mcp/acme');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: 'http://localhost/mcp/acme',
      authorization_servers: [idpA.issuer],
      scopes_supported: ['billing:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'toolgate: acme',
    });
    const gamma = await gw.request('/.well-known/oauth-protected-resource/mcp/gamma');
    const unknown = await gw.request('/.well-known/oauth-protected-resource/mcp/nosuch');
    expect([gamma.status, unknown.status]).toEqual([404, 404]);
    expect((await unknown.json()).error.message).toBe((await gamma.json()).error.message.replace('gamma', 'nosuch'));
  });

  it('TOOLGATE_PUBLIC_URL pins the advertised URLs whatever Host the request carries', async () => {
    const pinned = await testGateway([validManifest({ tenant: 'acme', policy, tools, identity: { oidc: { issuer: idpA.issuer, audience: AUDIENCE, jwks_uri: idpA.jwksUri } } })], {}, { env: { TOOLGATE_PUBLIC_URL: 'https://tools.example.com' } });
    const metadata = await (await pinned.request('http://attacker.example/.well-known/oauth-protected-resource/mcp/acme')).json();
    expect(metadata.resource).toBe('https://tools.example.com/mcp/acme');
    const bare = await pinned.request('http://attacker.example/mcp/acme', { json: toolsCall('echo'), headers: { accept: 'application/json, text/event-stream' } });
    expect(challenge(bare)).toBe('Bearer resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp/acme"');
    await expect(testGateway([], {}, { env: { TOOLGATE_PUBLIC_URL: 'https://tools.example.com/gateway' } })).rejects.toThrow(/TOOLGATE_PUBLIC_URL: "https:\/\/tools.example.com\/gateway" is not an origin/);
  });

  it('a token lacking a tool scope hears 403 insufficient_scope on /mcp; a key gets the forbidden tool result', async () => {
    const token = await idpA.sign({ sub: 'user-9', scope: 'approvals:decide' });
    const response = await mcp('/mcp/acme', token, toolsCall('billing'));
    expect(response.status).toBe(403);
    expect(challenge(response)).toMatch(/^Bearer resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp\/acme", error="insufficient_scope", scope="approvals:decide billing:read", error_description="/);
    expect((await response.json()).error.code).toBe('insufficient_scope');
    const withKey = await mcp('/mcp/acme', 'keyholder', toolsCall('billing'));
    expect(withKey.status).toBe(200);
    expect((await withKey.json()).result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('requires scope `billing:read`') }] });
  });

  it('keys keep working on /mcp and /mcp/<own tenant>; another tenant or two different tenants named is refused', async () => {
    expect((await mcp('/mcp', 'keyholder', toolsCall('echo'))).status).toBe(200);
    expect((await mcp('/mcp/acme', 'keyholder', toolsCall('echo'))).status).toBe(200);
    expect((await mcp('/mcp/beta', 'keyholder', toolsCall('echo'))).status).toBe(404);
    const both = await mcp('/mcp/acme', await idpA.sign({ sub: 'u' }), toolsCall('echo'), { 'x-toolgate-tenant': 'beta' });
    expect(both.status).toBe(400);
  });
});

describe('CORS for browser MCP clients', () => {
  let web: Awaited<ReturnType<typeof testGateway>>;
  beforeAll(async () => {
    web = await testGateway([validManifest({ tenant: 'acme', policy, tools, identity: { oidc: { issuer: idpA.issuer, audience: AUDIENCE, jwks_uri: idpA.jwksUri } } })], {}, { env: { TOOLGATE_ALLOWED_ORIGINS: 'https://app.example.com' } });
  });
  const preflight = (path: string, origin: string) =>
    web.request(path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });

  it('answers the preflight of an allowed origin, without credentials mode', async () => {
    for (const path of ['/mcp', '/mcp/acme', '/.well-known/oauth-protected-resource/mcp/acme']) {
      const response = await preflight(path, 'https://app.example.com');
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(response.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,Accept,Mcp-Session-Id,Mcp-Protocol-Version,Mcp-Method,Mcp-Name,Last-Event-ID,X-Toolgate-Tenant,X-Toolgate-Thread');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('grants the Mcp-Param-* headers a 2026-07-28 client asks for, and nothing else it asks for', async () => {
    const response = await web.request('/mcp/acme', { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-method, mcp-name, mcp-param-region, x-evil, mcp-param-bad name' } });
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,Accept,Mcp-Session-Id,Mcp-Protocol-Version,Mcp-Method,Mcp-Name,Last-Event-ID,X-Toolgate-Tenant,X-Toolgate-Thread,mcp-param-region');
  });

  it('lets an allowed page read the 401 challenge and the metadata; a disallowed origin gets no grant', async () => {
    const denied = await web.request('/mcp/acme', { json: toolsCall('echo'), headers: { origin: 'https://app.example.com', accept: 'application/json, text/event-stream' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(denied.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id,WWW-Authenticate');
    const metadata = await web.request('/.well-known/oauth-protected-resource/mcp/acme', { headers: { origin: 'https://app.example.com' } });
    expect(metadata.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const evilPreflight = await preflight('/mcp/acme', 'https://evil.example.com');
    expect(evilPreflight.headers.get('access-control-allow-origin')).toBeNull();
    const evil = await web.request('/mcp/acme', { json: toolsCall('echo'), headers: { origin: 'https://evil.example.com', authorization: `Bearer ${await idpA.sign({ sub: 'u' })}` } });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});
