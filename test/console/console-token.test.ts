import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

/** Signing in to the console with a token from the tenant's identity provider (a token names no tenant, so the form does). */
const AUDIENCE = 'https://tools.example.com/mcp';
const ORIGIN = 'http://localhost';
let idp: LocalIssuer;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const tools = [{ name: 'echo', executor: { kind: 'builtin' } }];
  gw = await testGateway(
    [validManifest({ tenant: 'acme', tools, identity: { oidc: { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri } } }), validManifest({ tenant: 'beta', tools })],
    {},
  );
});
afterAll(async () => idp.close());

const signIn = (fields: Record<string, string>) =>
  gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, 'sec-fetch-site': 'same-origin' } });
const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(';')[0]).filter((c) => !c.endsWith('=')).join('; ');

describe('console: sign in with a token', () => {
  it('a token and its tenant sign in; pages follow the token principal and scopes', async () => {
    const token = await idp.sign({ sub: 'dana@acme.example', scope: 'audit:read' });
    const response = await signIn({ credential: token, tenant: 'acme' });
    expect(response.status).toBe(303);
    const setCookies = response.headers.getSetCookie();
    expect(setCookies.find((c) => c.startsWith('__Secure-toolgate_console_tenant=acme;'))).toMatch(/HttpOnly.*Secure|Secure.*HttpOnly/);
    const page = await gw.app.request(`${ORIGIN}/console/audit`, { headers: { cookie: cookiesOf(response) } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('dana@acme.example');
    // audit:read only: the admin pages are not offered.
    expect(text).not.toContain('href="/console/keys"');
  });

  it('a token without a tenant, or for a tenant whose provider did not issue it, is refused', async () => {
    const token = await idp.sign({ sub: 'dana', scope: 'audit:read' });
    const bare = await signIn({ credential: token });
    expect(bare.status).toBe(401);
    expect(await bare.text()).toContain('name the tenant');
    const other = await signIn({ credential: token, tenant: 'beta' });
    expect(other.status).toBe(401);
    expect(other.headers.getSetCookie()).toEqual([]);
    const garbage = await signIn({ credential: token, tenant: '../acme' });
    expect(garbage.status).toBe(400);
  });

  it('an expired token ends the session on the next page', async () => {
    const token = await idp.sign({ sub: 'dana', scope: 'audit:read' }, { expiresInSeconds: -120 });
    const page = await gw.app.request(`${ORIGIN}/console/audit`, { headers: { cookie: `__Secure-toolgate_console=${token}; __Secure-toolgate_console_tenant=acme` } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/sign-in?ended=1');
  });
});
