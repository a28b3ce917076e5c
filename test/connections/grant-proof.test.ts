import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest, validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';
import { serveGateway, signInConsole } from '../helpers/confirm-client.ts';
import { followConnectLink } from './connect-flow.ts';
import type { OidcSettings } from '../../lib/registry/manifest/manifest.ts';

/**
 * A connection grant belongs to the person who consented, proved the way they proved it: a user
 * who signed in through the tenant's identity provider (issuer + subject), or a key. A tenant
 * admin (not trusted with users' tokens) who mints a key named after a signed-in user gets a
 * principal of that name, but never the user's upstream token; nor does a token of another issuer
 * the admin points the manifest at. Real gateway, memory store, a loopback OAuth token endpoint
 * and a loopback resource server that records every Authorization it is sent.
 */
const KEYS = `k:${Buffer.alloc(32, 9).toString('base64url')}`;
const AUDIENCE = 'https://tools.acme.example';
const USER = '1234567890';

let idp: LocalIssuer;
let otherIdp: LocalIssuer;
let provider: TestServer;
let api: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const connections = () => ({ github: { authorization_endpoint: 'https://idp.example/authorize', token_endpoint: `${provider.url}/token`, client_id: 'toolgate', scopes: ['repo'] } });
const tools = () => [{ name: 'repos', description: 'my repos', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${api.url}/repos`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'github' } } }];
const identity = (issuer: LocalIssuer) => ({ oidc: { issuer: issuer.issuer, audience: AUDIENCE, jwks_uri: issuer.jwksUri } });

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  otherIdp = await startLocalIssuer({ audience: AUDIENCE });
  // Each consent's code comes back as the upstream token `upstream-<code>`: whose consent a token came from is visible upstream.
  provider = await startTestServer((request, response) => {
    const code = new URLSearchParams(request.body).get('code');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `upstream-${code}`, token_type: 'Bearer' }));
  });
  api = await startTestServer((_request, response) => void response.end('{}'));
  gw = await testGateway(
    [validManifest({ tenant: 'acme', version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, identity: identity(idp), connections: connections(), tools: tools() })],
    { tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] }, tg_agent: { tenant: 'acme', principal: 'agent' } },
    { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' }, manifestCacheMs: 0 },
  );
});

afterAll(async () => {
  await Promise.all([idp?.close(), otherIdp?.close(), provider?.close(), api?.close()]);
});

let calls = 0;
async function call(credential: string) {
  const response = await gw.request('/v1/dispatch', { key: credential, headers: { 'x-toolgate-tenant': 'acme' }, json: { thread_id: 'th-proof', calls: [{ call_id: `c${calls++}`, name: 'repos', arguments: {} }] } });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()).results[0];
}

async function consent(link: string, code: string): Promise<string> {
  return (await followConnectLink(gw, link, `code=${code}`)).text();
}

async function mintKey(principal: string) {
  return gw.request('/v1/admin/keys', { key: 'tg_admin', json: { principal, scopes: [] } });
}

const userTokenSent = () => api.requests.filter((r) => r.headers.authorization === 'Bearer upstream-user-code');

describe('a grant is used only with the proof its owner consented with', () => {
  let imposter: string;
  let imposterId: string;
  let imposterLink: string;

  it('attack: a key the admin minted in a signed-in user\'s name never sends that user\'s upstream token', async () => {
    // The admin mints the key before the user ever connects (afterwards it is refused, below).
    const minted = await mintKey(USER);
    expect(minted.status).toBe(201);
    ({ key: imposter, id: imposterId } = await minted.json());
    const asked = await call(imposter);
    expect(asked.status).toBe('authorization_required');
    imposterLink = asked.error.details.authorization_url;

    const user = await idp.sign({ sub: USER });
    expect(await consent((await call(user)).error.details.authorization_url, 'user-code')).toContain(`is connected for ${USER}`);
    expect(await call(user)).toMatchObject({ status: 'ok' });
    expect(userTokenSent()).toHaveLength(1);

    const stolen = await call(imposter);
    expect(stolen).toMatchObject({ status: 'forbidden', error: { details: { connection: 'github' } } });
    expect(stolen.content).toContain(`a sign-in through ${idp.issuer}`);
    expect(userTokenSent()).toHaveLength(1);
  });

  it('the key\'s connect link, made before the user connected, cannot replace the user\'s grant', async () => {
    expect(await consent(imposterLink, 'admin-code')).toContain('This name belongs to a signed-in user');
    expect(await call(await idp.sign({ sub: USER }))).toMatchObject({ status: 'ok' });
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-user-code');
    expect(api.requests.filter((r) => r.headers.authorization === 'Bearer upstream-admin-code')).toHaveLength(0);
  });

  it('a new key in the name of a user who signed in and connected is refused: 409, said why', async () => {
    const refused = await mintKey(USER);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: 'conflict', message: expect.stringContaining('signs in to this tenant through its identity provider') });
    expect((await mintKey('someone-else')).status).toBe(201);
  });

  it('attack: nor does rotating a key in their name that was minted before they connected give the admin a new one', async () => {
    const rotated = await gw.request(`/v1/admin/keys/${imposterId}/rotate`, { key: 'tg_admin', json: {} });
    expect(rotated.status).toBe(409);
    expect((await rotated.json()).error).toMatchObject({ code: 'conflict', message: expect.stringContaining('signs in to this tenant through its identity provider') });
    const listed = await (await gw.request(`/v1/admin/keys/${imposterId}`, { key: 'tg_admin' })).json();
    expect(listed).toMatchObject({ state: 'active' });
    expect(listed.replaced_by).toBeUndefined();
  });

  it('a key in a user\'s name that connected first does not make the signed-in user use the key\'s account: the user is asked to connect', async () => {
    const squatter = (await (await mintKey('dana')).json()).key;
    expect(await consent((await call(squatter)).error.details.authorization_url, 'squatter-code')).toContain('is connected for dana');
    expect(await call(squatter)).toMatchObject({ status: 'ok' });
    const dana = await idp.sign({ sub: 'dana' });
    const asked = await call(dana);
    expect(asked.status).toBe('authorization_required');
    expect(await consent(asked.error.details.authorization_url, 'dana-code')).toContain('is connected for dana');
    expect(await call(dana)).toMatchObject({ status: 'ok' });
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-dana-code');
    // Only the squatter's own call sent the squatter's token; once dana connected, the key is refused.
    expect(api.requests.filter((r) => r.headers.authorization === 'Bearer upstream-squatter-code')).toHaveLength(1);
    expect((await call(squatter)).status).toBe('forbidden');
  });

  it('attack: nor a key whose name is the signed-in user\'s as four-eyes compares names (case)', async () => {
    for (const name of ['DANA', 'Dana', 'dAnA']) {
      const refused = await mintKey(name);
      expect(refused.status, name).toBe(409);
      expect((await refused.json()).error.code).toBe('conflict');
    }
    expect((await mintKey('danae')).status).toBe(201);
  });

  it('a key principal\'s own grant still works for its keys', async () => {
    expect(await consent((await call('tg_agent')).error.details.authorization_url, 'agent-code')).toContain('is connected for agent');
    expect(await call('tg_agent')).toMatchObject({ status: 'ok' });
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-agent-code');
  });

  it('a grant made before grants recorded their proof is no grant: its owner is asked to connect again', async () => {
    const record = `conn-grant/acme/agent/github`;
    const stored = (await gw.store.get(record))!;
    const { proof: _proof, ...legacy } = stored.data as Record<string, unknown>;
    await gw.store.put(record, { ...stored, data: legacy as typeof stored.data });
    const before = api.requests.length;
    expect(await call('tg_agent')).toMatchObject({ status: 'authorization_required' });
    expect(api.requests).toHaveLength(before);
  });

  it('attack: the admin points the tenant at an issuer of its own: tokens it mints for the user\'s subject do not get the user\'s grant', async () => {
    const v2 = baseManifest({ tenant: 'acme', version: '2', policy: { read: 'grant', write: 'deny', execute: 'deny' }, identity: identity(otherIdp), connections: connections(), tools: tools() });
    const published = await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: v2 });
    expect(published.status, await published.clone().text()).toBe(201);
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'tg_admin', json: {} })).status).toBe(200);

    const forged = await call(await otherIdp.sign({ sub: USER }));
    expect(forged).toMatchObject({ status: 'authorization_required' });
    expect(userTokenSent()).toHaveLength(2);
  });

  async function activate(version: string, oidc: OidcSettings) {
    const manifest = baseManifest({ tenant: 'acme', version, policy: { read: 'grant', write: 'deny', execute: 'deny' }, identity: { oidc }, connections: connections(), tools: tools() });
    const published = await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: manifest });
    expect(published.status, await published.clone().text()).toBe(201);
    expect((await gw.request(`/v1/admin/manifests/${version}/activate`, { key: 'tg_admin', json: {} })).status).toBe(200);
  }

  it('attack: the admin keeps the user\'s issuer but points jwks_uri at keys of its own: its tokens with the user\'s iss and sub do not get the grant', async () => {
    await activate('3', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: otherIdp.jwksUri });
    const forged = await call(await otherIdp.sign({ iss: idp.issuer, sub: USER }));
    expect(forged).toMatchObject({ status: 'authorization_required' });
    expect(userTokenSent()).toHaveLength(2);
  });

  it('attack: the admin moves the audience to an app of its own: the user\'s token for that app does not get the grant', async () => {
    await activate('4', { issuer: idp.issuer, audience: 'https://admin-app.example', jwks_uri: idp.jwksUri });
    const replayed = await call(await idp.sign({ sub: USER, aud: 'https://admin-app.example' }));
    expect(replayed).toMatchObject({ status: 'authorization_required' });
    expect(userTokenSent()).toHaveLength(2);
  });

  it('attack: a token without a sub, named after the user by another claim, is no proof of the user', async () => {
    await activate('5', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri, principal_claim: 'nickname' });
    const unnamed = await call(await idp.sign({ nickname: USER }));
    expect(unnamed).toMatchObject({ status: 'forbidden', error: { details: { connection: 'github' } } });
    expect(unnamed.content).toContain('sub');
    expect(userTokenSent()).toHaveLength(2);
    // The same settings still serve the user, whose token names them by sub as well.
    expect(await call(await idp.sign({ sub: USER, nickname: USER }))).toMatchObject({ status: 'ok' });
    expect(userTokenSent()).toHaveLength(3);
  });
});

describe('an approved call acts with the proof of the call that was parked', () => {
  it('a signed-in user\'s first use, approved by someone else, runs with the user\'s grant', async () => {
    const approving = await testGateway(
      [validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'deny', execute: 'deny' }, identity: identity(idp), connections: { github: { ...connections().github, approval_on_first_use: true } }, tools: tools() })],
      { tg_approver: { tenant: 'acme', principal: 'approver', scopes: ['approvals:decide'] } },
      { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' } },
    );
    const dispatch = async () => (await (await approving.request('/v1/dispatch', { key: await idp.sign({ sub: 'carol' }), headers: { 'x-toolgate-tenant': 'acme' }, json: { thread_id: 'th-approved', calls: [{ call_id: `a${calls++}`, name: 'repos', arguments: {} }] } })).json()).results[0];
    const link = (await dispatch()).error.details.authorization_url;
    expect(await (await followConnectLink(approving, link, 'code=carol-code')).text()).toContain('is connected for carol');
    const parked = await dispatch();
    expect(parked.status).toBe('pending_approval');
    // The approver sees who asked, never the requester's identity-provider subject or sign-in settings.
    const shown = await (await approving.request(`/v1/approvals/${parked.error.details.approval_id}`, { key: 'tg_approver' })).json();
    expect(shown).toMatchObject({ requested_by: 'carol' });
    expect(shown.requested_by_proof).toBeUndefined();
    const decided = await approving.request(`/v1/approvals/${parked.error.details.approval_id}`, { key: 'tg_approver', json: { decision: 'approve' } });
    const answer = await decided.json();
    expect(answer).toMatchObject({ result: { status: 'ok' } });
    expect(answer.approval.requested_by_proof).toBeUndefined();
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-carol-code');
  });
});

describe('a signed-in user\'s confirm is made by that sign-in', () => {
  it('attack: a key the admin minted as "Erin" before she connected (one person with "erin" by name) cannot confirm her parked call, which would run with her grant', async () => {
    const confirming = await testGateway(
      [validManifest({ tenant: 'acme', policy: { read: 'confirm', write: 'deny', execute: 'deny' }, identity: identity(idp), connections: connections(), tools: tools() })],
      { tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] } },
      { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' } },
    );
    const erin = () => idp.sign({ sub: 'erin' });
    // The admin mints "Erin" before she connects (afterwards the name is refused: 409).
    const minted = await confirming.request('/v1/admin/keys', { key: 'tg_admin', json: { principal: 'Erin', scopes: [] } });
    expect(minted.status).toBe(201);
    const imposter = (await minted.json()).key;
    const dispatch = async () => (await (await confirming.request('/v1/dispatch', { key: await erin(), headers: { 'x-toolgate-tenant': 'acme' }, json: { thread_id: 'th-confirm', calls: [{ call_id: `e${calls++}`, name: 'repos', arguments: {} }] } })).json()).results[0];
    const decide = async (credential: string, id: string) => confirming.request(`/v1/approvals/${id}`, { key: credential, headers: { 'x-toolgate-tenant': 'acme' }, json: { decision: 'approve' } });
    // Erin confirms her first call, is asked to connect, connects.
    const first = await dispatch();
    expect(first.status).toBe('pending_approval');
    const asked = await (await decide(await erin(), first.error.details.approval_id)).json();
    expect(asked.result).toMatchObject({ status: 'authorization_required' });
    expect(await (await followConnectLink(confirming, asked.result.error.details.authorization_url, 'code=erin-code')).text()).toContain('is connected for erin');

    const parked = await dispatch();
    expect(parked.status).toBe('pending_approval');
    expect((await confirming.request('/v1/admin/keys', { key: 'tg_admin', json: { principal: 'Erin', scopes: [] } })).status).toBe(409);
    const before = api.requests.length;
    const refused = await decide(imposter, parked.error.details.approval_id);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toContain('that same sign-in');
    expect(api.requests).toHaveLength(before);
    // Nor on the console's confirm page, signed in with that key.
    const served = await serveGateway(confirming);
    try {
      const session = await signInConsole(served.url, imposter);
      const page = await session.post(`/console/confirm/${parked.error.details.approval_id}`, { decision: 'confirm' });
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('confirm it signed in the same way');
    } finally {
      await served.close();
    }
    expect(api.requests).toHaveLength(before);

    const confirmed = await (await decide(await erin(), parked.error.details.approval_id)).json();
    expect(confirmed).toMatchObject({ result: { status: 'ok' } });
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-erin-code');
  });
});
