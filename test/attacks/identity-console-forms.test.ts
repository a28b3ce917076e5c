import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

/**
 * Attacks on the console's forms, cookies and rendering that hold: hostile token principals and
 * reasons stay text, login CSRF from look-alike sites, scope bypass by posting directly, a tenant
 * cookie planted next to a key session, duplicated and oversized cookies.
 */
const AUDIENCE = 'https://tools.example.com/mcp';
const ORIGIN = 'http://localhost';
const HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
let idp: LocalIssuer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const publish = { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } } } };
beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const identity = { oidc: { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri } };
  gw = await testGateway([validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'review' }, tools: [publish], identity }), validManifest({ tenant: 'beta' })], {
    agent: { tenant: 'acme', principal: 'agent', scopes: [] },
    reader: { tenant: 'acme', principal: 'reader', scopes: ['approvals:read', 'audit:read'] },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read', 'admin'] },
  });
});
afterAll(async () => idp.close());

const post = (path: string, body: string, headers: Record<string, string>) => gw.app.request(`${ORIGIN}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
const get = (path: string, cookie: string) => gw.app.request(`${ORIGIN}${path}`, { headers: { cookie } });
const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

async function session(fields: Record<string, string>): Promise<{ cookie: string; csrf: string }> {
  const response = await post('/console/sign-in', new URLSearchParams(fields).toString(), { origin: ORIGIN });
  expect(response.status).toBe(303);
  const cookie = cookiesOf(response);
  const page = await (await get('/console/audit', cookie)).text();
  return { cookie, csrf: /name="_csrf" value="([0-9a-f]{64})"/.exec(page)![1] };
}

async function park(thread: string): Promise<string> {
  const body = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: thread, calls: [{ call_id: 'c1', name: 'publish', arguments: { text: 'x' } }] } })).json();
  return body.results[0].error.details.approval_id;
}

describe('console attacks that hold', () => {
  it('a token principal and a decision reason full of markup stay text on the approval and audit pages', async () => {
    const id = await park('xss');
    const token = await idp.sign({ sub: HOSTILE, scope: 'approvals:decide audit:read' });
    const hostile = await session({ credential: token, tenant: 'acme' });
    const decided = await post(`/console/approvals/${id}`, new URLSearchParams({ _csrf: hostile.csrf, decision: 'reject', reason: HOSTILE }).toString(), { origin: ORIGIN, cookie: hostile.cookie });
    expect(decided.status).toBe(303);
    const viewer = await session({ credential: 'alice' });
    for (const page of [await (await get(`/console/approvals/${id}`, viewer.cookie)).text(), await (await get('/console/audit?thread_id=xss', viewer.cookie)).text(), await (await get('/console/audit', hostile.cookie)).text()]) {
      expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(page).not.toContain('<img');
      expect(page.match(/<script/g)).toHaveLength(1);
    }
  });

  it('login CSRF: a same-site, null-origin or origin-less sign-in form is refused and sets no cookie', async () => {
    const variants: Array<Record<string, string>> = [{ origin: 'http://evil.localhost', 'sec-fetch-site': 'same-site' }, { origin: 'null' }, {}, { origin: `${ORIGIN}.evil.example` }];
    for (const headers of variants) {
      const response = await post('/console/sign-in', 'credential=alice', headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    const plain = await post('/console/sign-in', 'credential=alice', { origin: ORIGIN, 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
  });

  it('scope bypass: a reader posting a decision, a manifest activation or a new key directly is refused', async () => {
    const id = await park('bypass');
    const reader = await session({ credential: 'reader' });
    const attempts = [[`/console/approvals/${id}`, { decision: 'reject' }], ['/console/manifests/1/activate', {}], ['/console/manifests/rollback', {}], ['/console/keys', { principal: 'evil', scopes: 'admin', expires_in_days: '0' }]] as const;
    for (const [path, fields] of attempts) {
      const response = await post(path, new URLSearchParams({ _csrf: reader.csrf, ...fields }).toString(), { origin: ORIGIN, cookie: reader.cookie });
      expect(response.status, path).toBe(403);
    }
    expect((await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json()).state).toBe('pending');
    expect(await (await get('/console/keys', (await session({ credential: 'alice' })).cookie)).text()).not.toContain('evil');
  });

  it('a tenant cookie planted beside a key session neither moves it to another tenant nor keeps its form token', async () => {
    const alice = await session({ credential: 'alice' });
    const planted = `${alice.cookie}; __Secure-toolgate_console_tenant=beta`;
    const page = await get('/console/keys', planted);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/sign-in?ended=1');
  });

  it('a duplicated session cookie is read as one credential (the first, as browsers send the most specific first); an oversized one is no session', async () => {
    const alice = await session({ credential: 'alice' });
    const doubled = await get('/console', `__Secure-toolgate_console=agent; ${alice.cookie}`);
    expect(doubled.status).toBe(200);
    const text = await doubled.text();
    expect(text).toContain('Signed in as <strong>agent</strong>');
    const huge = await get('/console/keys', `__Secure-toolgate_console=${'a'.repeat(9000)}`);
    expect(huge.status).toBe(303);
    expect(huge.headers.get('location')).toBe('/console/sign-in');
  });
});
