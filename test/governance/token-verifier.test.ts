import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { egressFetch, resolvingTransport } from '../../lib/egress/fetch.ts';
import { EgressAllowlist } from '../../lib/egress/allowlist.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import { TokenVerifier } from '../../lib/governance/token-verifier.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const AUDIENCE = 'toolgate';
let idp: LocalIssuer;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
});
afterAll(() => idp.close());
afterEach(() => vi.useRealTimers());

const loopbackAllowed = egressFetch(new EgressPolicy(EgressAllowlist.parse('127.0.0.1')));

describe('TokenVerifier', () => {
  it('gives a principal of its own tenant only, named by the configured claim, with the token credential', async () => {
    const verifier = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri, principal_claim: 'email', scopes_claim: 'permissions' }, loopbackAllowed);
    const verified = await verifier.verify(await idp.sign({ sub: 'auth0|123', email: 'ada@acme.example', permissions: ['billing:read', 'audit:read'], scope: 'ignored' }));
    expect(verified).toEqual({ ok: true, principal: { tenant: 'acme', principal: 'ada@acme.example', scopes: ['billing:read', 'audit:read'], credential: { kind: 'token', issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri }, claims: expect.objectContaining({ email: 'ada@acme.example', iss: idp.issuer }) } });
  });

  it('allows only the configured algorithms', async () => {
    const verifier = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri, algorithms: ['ES256'] }, loopbackAllowed);
    expect(await verifier.verify(await idp.sign({ sub: 'u' }))).toEqual({ ok: false, reason: 'invalid', message: "the token's signing algorithm is not allowed (allowed: ES256)" });
  });

  it('fetches the key set only where the egress policy allows: a literal internal address is refused (503) unless allowed', async () => {
    const refused = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri }, egressFetch(new EgressPolicy()));
    const before = idp.server.requests.length;
    const outcome = await refused.verify(await idp.sign({ sub: 'u' }));
    expect(outcome).toMatchObject({ ok: false, reason: 'unavailable', message: expect.stringContaining(`toolgate does not connect to 127.0.0.1 (loopback); the operator can allow it by adding "127.0.0.1:${new URL(idp.issuer).port}" to TOOLGATE_EGRESS_ALLOW`) });
    // Discovery (no jwks_uri) is refused the same way.
    const discovering = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE }, egressFetch(new EgressPolicy()));
    expect(await discovering.verify(await idp.sign({ sub: 'u' }))).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(idp.server.requests.length).toBe(before);
  });

  it('a public-looking name that resolves to an internal address is refused where the runtime resolves names', async () => {
    // idp.example "resolves" to loopback; the transport would send to the local issuer if allowed.
    const toLocal = (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace('https://idp.example', idp.issuer), init);
    const settings = { issuer: 'https://idp.example', audience: AUDIENCE, jwks_uri: 'https://idp.example/jwks' };
    const token = await idp.sign({ sub: 'u', iss: 'https://idp.example' });
    const refused = new TokenVerifier('acme', settings, egressFetch(new EgressPolicy(), resolvingTransport(async () => ['127.0.0.1'], toLocal)));
    expect(await refused.verify(token)).toMatchObject({ ok: false, reason: 'unavailable', message: expect.stringContaining('toolgate does not connect to idp.example: it resolves to 127.0.0.1 (loopback)') });
    const allowed = new TokenVerifier('acme', settings, egressFetch(new EgressPolicy(EgressAllowlist.parse('idp.example')), resolvingTransport(async () => ['127.0.0.1'], toLocal)));
    expect(await allowed.verify(token)).toMatchObject({ ok: true, principal: { principal: 'u' } });
  });

  it('finds the key set through the discovery document, which must name the same issuer', async () => {
    const discovered = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE }, loopbackAllowed);
    expect(await discovered.verify(await idp.sign({ sub: 'u' }))).toMatchObject({ ok: true });
    const slash = `${idp.issuer}/`;
    const mismatched = new TokenVerifier('acme', { issuer: slash, audience: AUDIENCE }, loopbackAllowed);
    expect(await mismatched.verify(await idp.sign({ sub: 'u', iss: slash }))).toEqual({
      ok: false,
      reason: 'unavailable',
      message: `cannot fetch the identity provider's keys: the discovery document at ${idp.issuer}/.well-known/openid-configuration names the issuer "${idp.issuer}", not "${slash}"; write identity.oidc.issuer exactly as the provider does`,
    });
  });

  it("follows a key rotation: a new kid is fetched once the cooldown has passed, and forged kids cannot make it fetch more", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = new TokenVerifier('acme', { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri }, loopbackAllowed, { cooldownMs: 30_000 });
    expect(await verifier.verify(await idp.sign({ sub: 'u' }))).toMatchObject({ ok: true });
    const fetched = idp.jwksFetches;
    await idp.rotate();
    const rotated = await idp.sign({ sub: 'u' });
    // Within the cooldown after the last fetch the new kid is unknown, however often it is presented.
    vi.setSystemTime(Date.now() + 1000);
    for (let i = 0; i < 3; i++) expect(await verifier.verify(rotated)).toMatchObject({ ok: false, reason: 'invalid' });
    expect(idp.jwksFetches).toBe(fetched);
    vi.setSystemTime(Date.now() + 31_000);
    expect(await verifier.verify(await idp.sign({ sub: 'u' }))).toMatchObject({ ok: true });
    expect(idp.jwksFetches).toBe(fetched + 1);
    // A forged kid right after the refetch fetches nothing more.
    expect(await verifier.verify(await idp.sign({ sub: 'u' }, { kid: 'forged' }))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(idp.jwksFetches).toBe(fetched + 1);
  });
});
