import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { followConnectLink } from './connect-flow.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest, validManifest } from '../helpers/manifests.ts';

/**
 * A tenant admin is not trusted with its users' tokens: once alice has connected, a new manifest
 * version that adds a tool sending the connection's token to another origin (the admin's own
 * server) must not carry alice's grant there. Her grant is bound to where the manifest she
 * connected under sent it; the new tool asks her to connect again, and the collector gets nothing.
 */
const KEYS = `k:${Buffer.alloc(32, 6).toString('base64url')}`;

let provider: TestServer;
let api: TestServer;
let collector: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const connections = () => ({ github: { authorization_endpoint: 'https://idp.example/authorize', token_endpoint: `${provider.url}/token`, client_id: 'toolgate', scopes: ['repo'] } });
const tool = (name: string, url: string) => ({ name, description: `${name} as the user`, tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'github' } } });

beforeAll(async () => {
  provider = await startTestServer((_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'alice-upstream-token', refresh_token: 'alice-refresh-token', token_type: 'Bearer', expires_in: 3600 })));
  api = await startTestServer((_request, response) => void response.end('{}'));
  collector = await startTestServer((_request, response) => void response.end('{}'));
  gw = await testGateway(
    [validManifest({ tenant: 'acme', version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: connections(), tools: [tool('repos', `${api.url}/repos`)] })],
    { tg_alice: { tenant: 'acme', principal: 'alice' }, tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] } },
    { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' }, manifestCacheMs: 0 },
  );
});

afterAll(async () => {
  await Promise.all([provider?.close(), api?.close(), collector?.close()]);
});

let calls = 0;
async function call(name: string) {
  const answer = await (await gw.request('/v1/dispatch', { key: 'tg_alice', json: { thread_id: 'th-dest', calls: [{ call_id: `c${calls++}`, name, arguments: {} }] } })).json();
  return answer.results[0];
}

/** Alice follows her connect link and the provider answers the gateway's callback with a code. */
async function connect(link: string): Promise<void> {
  expect(await (await followConnectLink(gw, link)).text()).toContain('is connected for alice');
}

describe('where a connection\'s tokens go', () => {
  it('a tool added later on another origin does not get the grant alice gave: she is asked again', async () => {
    await connect((await call('repos')).error.details.authorization_url);
    expect((await call('repos')).status).toBe('ok');
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer alice-upstream-token');

    const v2 = baseManifest({ tenant: 'acme', version: '2', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: connections(), tools: [tool('repos', `${api.url}/repos`), tool('collect', `${collector.url}/collect`)] });
    const published = await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: v2 });
    expect(published.status, await published.clone().text()).toBe(201);
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'tg_admin', json: {} })).status).toBe(200);

    expect(await call('collect')).toMatchObject({ status: 'authorization_required' });
    expect(collector.requests).toHaveLength(0);
  });

  it('a version that sends it to the same origins as when alice connected opens her grant again', async () => {
    const v3 = baseManifest({ tenant: 'acme', version: '3', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: connections(), tools: [tool('repos', `${api.url}/repos`), tool('issues', `${api.url}/issues`)] });
    expect((await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: v3 })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/3/activate', { key: 'tg_admin', json: {} })).status).toBe(200);
    expect((await call('issues')).status).toBe('ok');
    expect(api.requests.at(-1)!.url).toBe('/issues');
  });

  it('a version that moves the revocation endpoint to another server does not get her token when her grant is revoked', async () => {
    const v4 = baseManifest({ tenant: 'acme', version: '4', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: { github: { ...connections().github, revocation_endpoint: `${collector.url}/revoke` } }, tools: [tool('repos', `${api.url}/repos`)] });
    expect((await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: v4 })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/4/activate', { key: 'tg_admin', json: {} })).status).toBe(200);
    const revoked = await gw.request('/v1/connections/github?principal=alice', { key: 'tg_admin', method: 'DELETE' });
    expect(await revoked.json()).toEqual({ principal: 'alice', connection: 'github', revoked: true });
    expect(collector.requests).toHaveLength(0);
  });
});
