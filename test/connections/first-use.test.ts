import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { followConnectLink } from './connect-flow.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest, validManifest } from '../helpers/manifests.ts';

/**
 * `approval_on_first_use`: a user's first call through the connection after they connect waits
 * for an approver even where the policy grants it; once approved and run, later calls follow the
 * policy; revoking (or connecting again) makes the next call a first use again.
 */
const KEYS = `k:${Buffer.alloc(32, 4).toString('base64url')}`;

let provider: TestServer;
let api: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const connections = (extra: Record<string, unknown> = {}) => ({ github: { authorization_endpoint: 'https://idp.example/authorize', token_endpoint: `${provider.url}/token`, client_id: 'toolgate', approval_on_first_use: true, ...extra } });
const repos = (extra: Record<string, unknown> = {}) => ({ name: 'repos', description: 'my repos', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${api.url}/repos`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'github' } }, ...extra });

beforeAll(async () => {
  provider = await startTestServer((_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'alice-token', token_type: 'Bearer' })));
  api = await startTestServer((_request, response) => void response.end('{}'));
  gw = await testGateway(
    [validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: connections(), tools: [repos()] })],
    { tg_alice: { tenant: 'acme', principal: 'alice' }, tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin', 'approvals:decide'] } },
    { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' } },
  );
});

afterAll(async () => {
  await Promise.all([provider?.close(), api?.close()]);
});

let calls = 0;
async function call() {
  const answer = await (await gw.request('/v1/dispatch', { key: 'tg_alice', json: { thread_id: 'th-first', calls: [{ call_id: `c${calls++}`, name: 'repos', arguments: {} }] } })).json();
  return answer.results[0];
}

async function connect(link: string): Promise<void> {
  expect(await (await followConnectLink(gw, link)).text()).toContain('is connected for alice');
}

describe('approval on a connection\'s first use', () => {
  it('asks to connect first, then parks the first call for an approver, then follows the policy', async () => {
    const unconnected = await call();
    expect(unconnected.status).toBe('authorization_required');
    await connect(unconnected.error.details.authorization_url);

    const first = await call();
    expect(first).toMatchObject({ status: 'pending_approval' });
    expect(api.requests).toHaveLength(0);
    const id = first.error.details.approval_id;
    const decided = await gw.request(`/v1/approvals/${id}`, { key: 'tg_admin', json: { decision: 'approve' } });
    expect(await decided.json()).toMatchObject({ result: { status: 'ok' } });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers.authorization).toBe('Bearer alice-token');

    expect(await call()).toMatchObject({ status: 'ok' });
    expect(api.requests).toHaveLength(2);
  });

  it('after a revoke and a new consent, the next call is a first use again', async () => {
    expect((await gw.request('/v1/connections/github', { key: 'tg_alice', method: 'DELETE' })).status).toBe(200);
    await connect((await call()).error.details.authorization_url);
    expect(await call()).toMatchObject({ status: 'pending_approval' });
  });

  it('publishing refuses a tool through it that says approval "never"', async () => {
    const manifest = baseManifest({ tenant: 'acme', version: '2', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: connections(), tools: [repos({ approval: 'never' })] });
    const published = await gw.request('/v1/admin/manifests', { key: 'tg_admin', json: manifest });
    expect(published.status).toBe(400);
    expect((await published.json()).error.problems).toContainEqual({ path: '$.tools[0].approval', message: 'is "never", but connection "github" asks approval on a user\'s first use (approval_on_first_use): remove one of them' });
  });
});
