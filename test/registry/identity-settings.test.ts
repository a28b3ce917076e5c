import { describe, expect, it } from 'vitest';
import { EgressAllowlist } from '../../lib/egress/allowlist.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const problemsOf = (identity: unknown, egress?: EgressPolicy) => {
  const result = loadManifest({ ...baseManifest(), identity }, loaderOptions({ confinement: egress ? { egress } : {} }));
  return result.ok ? [] : result.problems;
};

describe('manifest identity.oidc', () => {
  it('accepts an issuer with its audience and optional settings', () => {
    expect(problemsOf({ oidc: { issuer: 'https://acme.eu.auth0.com/', audience: 'https://tools.example.com/mcp/acme', principal_claim: 'email', scopes_claim: 'permissions', algorithms: ['RS256'] } })).toEqual([]);
    expect(problemsOf({ oidc: { issuer: 'https://login.microsoftonline.com/0000/v2.0', audience: 'api://toolgate', jwks_uri: 'https://login.microsoftonline.com/0000/discovery/v2.0/keys' } })).toEqual([]);
  });

  it('reports what is wrong at its JSON path', () => {
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com' } })).toEqual([{ path: '$.identity.oidc.audience', message: 'is required' }]);
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com', audience: 'x', algorithms: ['HS256'] } }).map((p) => p.path)).toContain('$.identity.oidc.algorithms[0]');
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com', audience: 'x', algorithms: ['none'] } }).map((p) => p.path)).toContain('$.identity.oidc.algorithms[0]');
    expect(problemsOf({ oidc: { issuer: 'http://idp.example.com', audience: 'x' } })).toEqual([
      { path: '$.identity.oidc.issuer', message: 'the issuer must use https (plain http is accepted only for 127.0.0.1, [::1] or localhost): tokens are only as safe as the way their keys are fetched' },
    ]);
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com?x=1', audience: 'x' } })).toEqual([{ path: '$.identity.oidc.issuer', message: 'the issuer must not have a ?query: write it exactly as the tokens\' "iss" claim' }]);
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com', audience: 'x', jwks_uri: 'https://user:pw@idp.example.com/keys' } })).toEqual([{ path: '$.identity.oidc.jwks_uri', message: 'jwks_uri must not carry a user name or password' }]);
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com', audience: 'x', surprise: true } }).map((p) => p.path)).toEqual(['$.identity.oidc.surprise']);
  });

  it('refuses a key-set URL at an internal address unless the operator allows it (the issuer when there is no jwks_uri)', () => {
    const policy = new EgressPolicy();
    expect(problemsOf({ oidc: { issuer: 'https://idp.example.com', audience: 'x', jwks_uri: 'http://169.254.169.254/latest/meta-data' } }, policy)).toEqual([
      { path: '$.identity.oidc.jwks_uri', message: 'jwks_uri must use https (plain http is accepted only for 127.0.0.1, [::1] or localhost): tokens are only as safe as the way their keys are fetched' },
      { path: '$.identity.oidc.jwks_uri', message: 'toolgate does not connect to 169.254.169.254 (cloud metadata service); the operator can allow it by adding "169.254.169.254:80" to TOOLGATE_EGRESS_ALLOW' },
    ]);
    expect(problemsOf({ oidc: { issuer: 'http://127.0.0.1:9000', audience: 'x' } }, policy)).toEqual([
      { path: '$.identity.oidc.issuer', message: 'toolgate does not connect to 127.0.0.1 (loopback); the operator can allow it by adding "127.0.0.1:9000" to TOOLGATE_EGRESS_ALLOW' },
    ]);
    expect(problemsOf({ oidc: { issuer: 'http://127.0.0.1:9000', audience: 'x' } }, new EgressPolicy(EgressAllowlist.parse('127.0.0.1:9000')))).toEqual([]);
  });

  it('publishing through the admin API refuses an internal key-set URL', async () => {
    const gw = await testGateway([baseManifest()], { admin: { tenant: 'acme', principal: 'root', scopes: ['admin'] } }, { env: { TOOLGATE_EGRESS_ALLOW: '' } });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: { ...baseManifest({ version: '2' }), identity: { oidc: { issuer: 'https://idp.example.com', audience: 'x', jwks_uri: 'https://localhost/keys' } } } });
    expect(response.status).toBe(400);
    expect((await response.json()).error.problems).toEqual([{ path: '$.identity.oidc.jwks_uri', message: 'toolgate does not connect to localhost (a local or internal host name); the operator can allow it by adding "localhost:443" to TOOLGATE_EGRESS_ALLOW' }]);
  });
});
