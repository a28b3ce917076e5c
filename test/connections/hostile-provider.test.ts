import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { followConnectLink } from './connect-flow.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Attacks on the connect flow from the provider's side and from readers of the audit trail: a
 * token endpoint that never answers, or answers gigabytes; a tenant admin who reads the connect
 * link out of the audit trail and consents first, with their own upstream account.
 */
const KEYS = `k:${Buffer.alloc(32, 5).toString('base64url')}`;

let tool: TestServer;
let stalled: TestServer;
let flood: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  tool = await startTestServer((_request, response) => void response.end('{}'));
  // Takes the request, never answers.
  stalled = await startTestServer(() => {});
  // Answers a body far larger than any token response.
  flood = await startTestServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const more = () => {
      while (sent < 64 && response.write(chunk)) sent++;
      if (sent < 64) response.once('drain', more);
      else response.end();
    };
    response.write('{"access_token":"');
    more();
  });
  const connection = (token_endpoint: string) => ({ authorization_endpoint: 'https://idp.example/authorize', token_endpoint, client_id: 'toolgate', scopes: ['read'] });
  const tools = ['stalled', 'flood'].map((name) => ({ name, description: `reads via ${name}`, tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${tool.url}/${name}`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: name } } }));
  gw = await testGateway(
    [validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'deny', execute: 'deny' }, connections: { stalled: connection(`${stalled.url}/token`), flood: connection(`${flood.url}/token`) }, tools })],
    { tg_alice: { tenant: 'acme', principal: 'alice' }, tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin', 'audit:read'] } },
    { env: { TOOLGATE_CONNECTION_KEYS: KEYS, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x', TOOLGATE_PUBLIC_URL: 'http://localhost' } },
  );
});

afterAll(async () => {
  await Promise.all([tool?.close(), stalled?.close(), flood?.close()]);
});

let calls = 0;
/** A call by alice through `name`'s connection: its connect link. */
async function connectLink(name: string): Promise<string> {
  const answer = await (await gw.request('/v1/dispatch', { key: 'tg_alice', json: { thread_id: 'th-hostile', calls: [{ call_id: `c${calls++}`, name, arguments: {} }] } })).json();
  expect(answer.results[0]).toMatchObject({ status: 'authorization_required' });
  return answer.results[0].error.details.authorization_url as string;
}


describe('a hostile token endpoint', () => {
  it('that never answers: the callback gives up with a page that says so, and stores nothing', async () => {
    const page = await followConnectLink(gw, await connectLink('stalled'));
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('did not answer within 10 s');
    expect(text).toContain('Nothing was stored');
    expect(stalled.requests).toHaveLength(1);
    expect(tool.requests).toHaveLength(0);
  }, 40_000);

  it('that answers megabytes: the answer is not read past its bound, and the callback refuses it', async () => {
    const page = await followConnectLink(gw, await connectLink('flood'));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('not JSON');
  });
});

describe('a hostile authorization server', () => {
  it('cannot put markup in the page the user reads: its error_description is text', async () => {
    const page = await followConnectLink(gw, await connectLink('stalled'), `error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script><img src=x onerror=alert(2)>')}`);
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(text).not.toMatch(/<script|<img/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('the connect link in the audit trail', () => {
  it('is not there: an admin reading the audit cannot consent in the user\'s place', async () => {
    const link = await connectLink('stalled');
    const handle = new URL(link).searchParams.get('link')!;
    const audit = await (await gw.request('/v1/audit?thread_id=th-hostile&limit=500', { key: 'tg_admin' })).text();
    expect(audit).toContain('authorization_required');
    expect(audit).not.toContain(handle);
    const stored = await gw.store.listAudit({ tenant: 'acme', thread_id: 'th-hostile' }, { limit: 500 });
    expect(JSON.stringify(stored.envelopes)).not.toContain(handle);
    // The user still has it, and it still works.
    expect((await gw.request(new URL(link).pathname + new URL(link).search)).status).toBe(302);
  });
});
