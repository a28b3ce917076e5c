import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressAllowlist } from '../../lib/egress/allowlist.ts';
import { egressFetch } from '../../lib/egress/fetch.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import { TokenVerifier } from '../../lib/governance/token-verifier.ts';
import { testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer } from '../support/local-issuer.ts';

/**
 * Attacks on tokens from a tenant's identity provider: anyone can send a bearer token naming a
 * tenant, so a provider that is down must not be asked again by every such request.
 */
let down: TestServer;
let token: string;

beforeAll(async () => {
  // A provider that is down: its key set answers 500, its discovery document 404.
  down = await startTestServer((request, response) => {
    response.writeHead(request.url.endsWith('/jwks') ? 500 : 404);
    response.end('down');
  });
  // Well-formed and signed (by a key the provider never published), so verifying it needs the key set.
  const { privateKey } = await generateKeyPair('RS256');
  token = await new SignJWT({ sub: 'mallory' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(down.url).setAudience('a').setExpirationTime('5m').sign(privateKey);
});
afterAll(() => down.close());

describe('attacks: identity provider fetch storms', () => {
  it('a provider that is down is asked once, not once per request: unauthenticated requests get 503 meanwhile', async () => {
    const tools = [{ name: 'echo', executor: { kind: 'builtin' } }];
    const gw = await testGateway([
      validManifest({ tenant: 'acme', tools, identity: { oidc: { issuer: down.url, audience: 'a', jwks_uri: `${down.url}/jwks` } } }),
      validManifest({ tenant: 'beta', tools, identity: { oidc: { issuer: down.url, audience: 'a' } } }),
    ], {});
    for (let i = 0; i < 20; i++) {
      const keySet = await gw.request('/v1/tools?tenant=acme', { key: token });
      expect(keySet.status).toBe(503);
      expect((await keySet.json()).error.message).toMatch(/^cannot fetch the identity provider's keys: /);
      // Not even a signed JWT: "a.b.c" needs the discovery document before it is refused.
      expect((await gw.request('/v1/tools?tenant=beta', { key: 'a.b.c' })).status).toBe(503);
    }
    expect(down.requests.filter((r) => r.url.endsWith('/jwks'))).toHaveLength(1);
    expect(down.requests.filter((r) => r.url.endsWith('/openid-configuration'))).toHaveLength(1);
  });

  it('after the pause the provider is asked again, and a recovered one signs callers in', async () => {
    const idp = await startLocalIssuer({ audience: 'a' });
    let clock = 1_000_000;
    let failing = true;
    const loopback = egressFetch(new EgressPolicy(EgressAllowlist.parse('127.0.0.1')));
    const flaky: typeof loopback = async (input, init) => (failing ? new Response('down', { status: 503 }) : loopback(input, init));
    const verifier = new TokenVerifier('acme', { issuer: idp.issuer, audience: 'a', jwks_uri: idp.jwksUri }, flaky, { failureBackoffMs: 10_000, now: () => clock });
    const good = await idp.sign({ sub: 'alice' });
    expect(await verifier.verify(good)).toMatchObject({ ok: false, reason: 'unavailable' });
    failing = false;
    expect(await verifier.verify(good)).toMatchObject({ ok: false, reason: 'unavailable', message: expect.stringMatching(/answered HTTP 503; not asked again for 10 s$/) });
    expect(idp.jwksFetches).toBe(0);
    clock += 10_000;
    expect(await verifier.verify(good)).toMatchObject({ ok: true, principal: { principal: 'alice' } });
    expect(idp.jwksFetches).toBe(1);
    await idp.close();
  });
});

describe('attacks: tenant names a caller makes up', () => {
  it('a huge or odd tenant name is neither looked up nor echoed whole, for tokens and keys alike', async () => {
    const gw = await testGateway([validManifest({ tenant: 'acme', tools: [{ name: 'echo', executor: { kind: 'builtin' } }] })], { k: { tenant: 'acme', principal: 'p' } });
    const lookedUp: string[] = [];
    const runtime = gw.tenants.runtime.bind(gw.tenants);
    gw.tenants.runtime = async (tenant: string) => {
      lookedUp.push(tenant);
      return runtime(tenant);
    };
    const huge = `x${'A'.repeat(5000)}`;
    for (const credential of ['a.b.c', 'k']) {
      const response = await gw.request('/v1/tools', { key: credential, headers: { 'x-toolgate-tenant': huge } });
      expect([401, 404]).toContain(response.status);
      const message = (await response.json()).error.message as string;
      expect(message.length).toBeLessThan(300);
      expect(message).toContain(`${'A'.repeat(63)}…`);
    }
    expect(lookedUp.filter((t) => t === huge)).toEqual([]);
  });
});
