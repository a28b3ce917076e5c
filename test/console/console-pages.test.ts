import { beforeEach, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/** The console's server side, request by request (the browser flows are in console-browser.test.ts). */
const publishTool = { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } }, required: ['text'] } };
const manifest = (tenant: string) => validManifest({ tenant, policy: { read: 'grant', write: 'review', execute: 'review' }, tools: [publishTool] });

let gw: Awaited<ReturnType<typeof testGateway>>;
const ORIGIN = 'http://localhost';

beforeEach(async () => {
  gw = await testGateway([manifest('acme'), manifest('beta')], {
    agent: { tenant: 'acme', principal: 'agent', scopes: ['approvals:decide'] },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read', 'admin'] },
    nobody: { tenant: 'acme', principal: 'nobody', scopes: [] },
    beta: { tenant: 'beta', principal: 'beta-boss', scopes: ['approvals:decide', 'audit:read', 'admin'] },
  });
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** What a browser on the console's own origin sends with a form. */
function post(path: string, fields: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) {
  return gw.app.request(`${ORIGIN}${path}`, { method: 'POST', body: form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, 'sec-fetch-site': 'same-origin', ...(cookie ? { cookie } : {}), ...headers } });
}

const get = (path: string, cookie?: string) => gw.app.request(`${ORIGIN}${path}`, { headers: cookie ? { cookie } : {} });

async function signIn(key: string): Promise<{ cookie: string; csrf: string }> {
  const response = await post('/console/sign-in', { credential: key });
  expect(response.status).toBe(303);
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  const page = await (await get('/console/audit', cookie)).text();
  const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page)?.[1] ?? '';
  return { cookie, csrf };
}

async function park(args: Record<string, unknown> = { text: 'hello', token: 's3cret' }, call_id = 'c1'): Promise<string> {
  const body = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id, name: 'publish', arguments: args }] } })).json();
  return body.results[0].error.details.approval_id;
}

const state = async (id: string) => (await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json()).state;

describe('console: headers and sign-in', () => {
  it('pages carry a nonce CSP (no unsafe-inline), no framing, no caching; the nonce is the one on the stylesheet and script', async () => {
    const response = await get('/console/sign-in');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    const page = await response.text();
    expect(page).toContain(`<style nonce="${nonce}">`);
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const other = /'nonce-([^']+)'/.exec((await get('/console/sign-in')).headers.get('content-security-policy')!)![1];
    expect(other).not.toBe(nonce);
  });

  it('signing in sets the session cookie (HttpOnly, Secure, SameSite=Strict, Path=/console); a wrong key does not', async () => {
    const ok = await post('/console/sign-in', { credential: 'alice' });
    expect(ok.headers.get('set-cookie')).toMatch(/^__Secure-toolgate_console=alice; Max-Age=28800; Path=\/console; HttpOnly; Secure; SameSite=Strict$/);
    expect(ok.headers.get('location')).toBe('/console');
    const bad = await post('/console/sign-in', { credential: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    expect(await bad.text()).toContain('Sign-in refused: invalid API key.');
    expect((await post('/console/sign-in', { credential: '' })).status).toBe(400);
  });

  it('a sign-in form posted from another site is refused (no one signs a browser in under their key)', async () => {
    const response = await post('/console/sign-in', { credential: 'alice' }, undefined, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('this form was sent from another site');
  });

  it('a cookie whose key no longer signs in ends the session; without a cookie every page goes to sign-in', async () => {
    const ended = await get('/console/approvals', '__Secure-toolgate_console=tg_unknown');
    expect(ended.status).toBe(303);
    expect(ended.headers.get('location')).toBe('/console/sign-in?ended=1');
    expect(ended.headers.get('set-cookie')).toMatch(/^__Secure-toolgate_console=; Max-Age=0; /);
    expect(await (await get('/console/sign-in?ended=1')).text()).toContain('Your session ended');
    for (const path of ['/console', '/console/approvals', '/console/audit', '/console/manifests', '/console/nowhere']) {
      expect((await get(path)).headers.get('location'), path).toBe('/console/sign-in');
    }
    expect((await post('/console/sign-out', {})).headers.get('location')).toBe('/console/sign-in');
  });

  it('a key with none of the scopes signs in to a page saying so', async () => {
    const { cookie } = await signIn('nobody');
    const home = await get('/console', cookie);
    expect(home.status).toBe(200);
    const page = await home.text();
    expect(page).toContain('Your key holds none of the scopes');
    expect(page).not.toContain('href="/console/approvals"');
  });

  it('a Host the gateway does not answer to is refused (DNS rebinding), as on the API', async () => {
    const strict = await testGateway([manifest('acme')], {}, { env: { TOOLGATE_ALLOWED_HOSTS: 'gateway.example' } });
    const refused = await strict.app.request('http://attacker.example/console/sign-in', { headers: { host: 'attacker.example' } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Host &quot;attacker.example&quot; is not a name this gateway answers to');
    expect((await strict.app.request('http://gateway.example/console/sign-in', { headers: { host: 'gateway.example' } })).status).toBe(200);
  });
});

describe('console: approvals', () => {
  it('hostile argument values are escaped, sensitive ones masked', async () => {
    const id = await park({ text: '</pre><script>alert(1)</script><img src=x onerror=alert(2)>', token: 'tok-SECRET' });
    const { cookie } = await signIn('alice');
    const page = await (await get('/console/approvals', cookie)).text();
    expect(page).toContain(id);
    expect(page).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('tok-SECRET');
    expect(page).toContain('&quot;token&quot;: &quot;••••••&quot;');
  });

  it('the requester cannot approve its own call here either; it may reject it', async () => {
    const id = await park();
    const { cookie, csrf } = await signIn('agent');
    const self = await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'approve' }, cookie);
    expect(self.status).toBe(403);
    expect(await self.text()).toContain('you requested this call, so you cannot approve it');
    expect(await state(id)).toBe('pending');
    expect((await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'reject' }, cookie)).status).toBe(303);
    expect(await state(id)).toBe('rejected');
  });

  it("another tenant's approval does not exist in the console (404), and cannot be decided", async () => {
    const id = await park();
    const { cookie, csrf } = await signIn('beta');
    expect((await get(`/console/approvals/${id}`, cookie)).status).toBe(404);
    expect((await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'approve' }, cookie)).status).toBe(404);
    expect(await (await get('/console/approvals', cookie)).text()).not.toContain(id);
    expect(await (await get('/console/audit?thread_id=th', cookie)).text()).toContain('No envelopes in this thread');
    expect(await state(id)).toBe('pending');
  });

  it('decisions need a form from this console: other content types, a missing or foreign token, another Origin are refused', async () => {
    const id = await park();
    const { cookie, csrf } = await signIn('alice');
    const json = await gw.app.request(`${ORIGIN}/console/approvals/${id}`, { method: 'POST', body: JSON.stringify({ _csrf: csrf, decision: 'approve' }), headers: { 'content-type': 'application/json', origin: ORIGIN, cookie } });
    expect(json.status).toBe(415);
    expect((await post(`/console/approvals/${id}`, { decision: 'approve' }, cookie)).status).toBe(403);
    const other = await signIn('agent');
    expect(other.csrf).not.toBe(csrf);
    expect((await post(`/console/approvals/${id}`, { _csrf: other.csrf, decision: 'approve' }, cookie)).status).toBe(403);
    const crossSite = await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'approve' }, cookie, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await state(id)).toBe('pending');
    expect((await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'maybe' }, cookie)).status).toBe(400);
    expect((await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'reject', reason: 'x'.repeat(2001) }, cookie)).status).toBe(400);
    expect(await state(id)).toBe('pending');
    const done = await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'approve' }, cookie);
    expect(done.status).toBe(303);
    expect(await state(id)).toBe('executed');
    const again = await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'reject' }, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('this approval is already executed (by alice)');
  });

  it('the result of an approved call is shown escaped on its page', async () => {
    const id = await park({ text: '<b>bold</b>' });
    const { cookie, csrf } = await signIn('alice');
    await post(`/console/approvals/${id}`, { _csrf: csrf, decision: 'approve' }, cookie);
    const page = await (await get(`/console/approvals/${id}`, cookie)).text();
    expect(page).toContain('<pre data-role="result">&lt;b&gt;bold&lt;/b&gt;</pre>');
    expect(page).toContain('alice via console');
  });
});

describe('console: audit and manifests', () => {
  it('a malformed thread id is a 400 page; a thread shows its verified chain', async () => {
    const { cookie } = await signIn('alice');
    expect((await get('/console/audit?thread_id=%3Cscript%3E', cookie)).status).toBe(400);
    await park();
    const page = await (await get('/console/audit?thread_id=th', cookie)).text();
    expect(page).toContain('data-chain="intact"');
    expect(page).toMatch(/all \d+ envelopes verified/);
  });

  it('activate and rollback refuse what cannot be done, with the reason', async () => {
    const { cookie, csrf } = await signIn('alice');
    const missing = await post('/console/manifests/9/activate', { _csrf: csrf }, cookie);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('version 9 of tenant &quot;acme&quot; is not published');
    const rollback = await post('/console/manifests/rollback', { _csrf: csrf }, cookie);
    expect(rollback.status).toBe(404);
    expect(await rollback.text()).toContain('has no earlier active version to roll back to');
  });
});

describe('console: keys', () => {
  it("creates a key shown once; refuses bad fields, another tenant's key id, and non-admins", async () => {
    const { cookie, csrf } = await signIn('alice');
    const created = await post('/console/keys', { _csrf: csrf, principal: 'ci-bot', scopes: 'approvals:read, audit:read', expires_in_days: '30' }, cookie);
    expect(created.status).toBe(201);
    const page = await created.text();
    const key = /data-role="key">(tg_[0-9a-f]{48})</.exec(page)![1];
    const id = /Id (key_[0-9a-f]{16})/.exec(page)![1];
    expect(await (await get('/console/keys', cookie)).text()).not.toContain(key);
    expect((await post('/console/keys', { _csrf: csrf, principal: 'bad name!', scopes: '', expires_in_days: '30' }, cookie)).status).toBe(400);
    expect((await post('/console/keys', { _csrf: csrf, principal: 'x', scopes: '<b>', expires_in_days: '30' }, cookie)).status).toBe(400);
    expect((await post('/console/keys', { _csrf: csrf, principal: 'x', scopes: '', expires_in_days: '7' }, cookie)).status).toBe(400);
    const beta = await signIn('beta');
    const foreign = await post(`/console/keys/${id}/revoke`, { _csrf: beta.csrf }, beta.cookie);
    expect(foreign.status).toBe(404);
    expect(await (await get('/console/keys', beta.cookie)).text()).not.toContain(id);
    expect((await gw.request('/v1/approvals', { key })).status).toBe(200);
    const agent = await signIn('agent');
    expect((await post(`/console/keys/${id}/revoke`, { _csrf: agent.csrf }, agent.cookie)).status).toBe(403);
    expect((await post('/console/keys', { _csrf: agent.csrf, principal: 'x', scopes: 'admin', expires_in_days: '0' }, agent.cookie)).status).toBe(403);
    expect((await gw.request('/v1/approvals', { key })).status).toBe(200);
    expect((await post(`/console/keys/${id}/revoke`, { _csrf: csrf }, cookie)).headers.get('location')).toBe(`/console/keys?revoked=${id}`);
    expect((await gw.request('/v1/approvals', { key })).status).toBe(401);
  });
});
