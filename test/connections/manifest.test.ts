import { describe, expect, it } from 'vitest';
import { SecretGrants } from '../../lib/crypto/secret-grants.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import type { ConfinementChecks } from '../../lib/registry/manifest/confinement.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const github = {
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
  client_id: 'Iv1.abc',
  client_secret: 'env:ACME_GITHUB_SECRET',
  scopes: ['repo', 'read:user'],
};
const httpTool = (auth: unknown) => ({ name: 'issues', description: 'lists issues', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: 'https://tools.acme.example/issues', secret: 'env:ACME_TOOL_SECRET', auth } });
const mcpTool = (auth: unknown) => ({ name: 'drive', description: 'reads drive', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'mcp', url: 'https://mcp.acme.example/mcp', tool: 'search', auth } });

const problemsOf = (fields: Record<string, unknown>, confinement: ConfinementChecks = {}) => {
  const result = loadManifest({ ...baseManifest(), ...fields }, loaderOptions({ confinement }));
  return result.ok ? [] : result.problems;
};

describe('manifest connections', () => {
  it('accepts a connection written out, one discovered from its issuer, a token exchange, and http and mcp tools using them', () => {
    const connections = {
      github,
      google: { issuer: 'https://accounts.google.com', client_id: 'x.apps.googleusercontent.com', client_secret: 'env:ACME_GOOGLE_SECRET', scopes: ['openid', 'https://www.googleapis.com/auth/drive.readonly'], authorization_params: { access_type: 'offline', prompt: 'consent' } },
      crm: { grant: 'token_exchange', issuer: 'https://idp.acme.example', client_id: 'toolgate', client_secret: 'env:ACME_IDP_SECRET', audience: 'https://crm.acme.example' },
    };
    const grants = SecretGrants.parse('acme:ACME_GITHUB_SECRET,ACME_GOOGLE_SECRET,ACME_IDP_SECRET,ACME_TOOL_SECRET');
    expect(problemsOf({ tenant: 'acme', connections, tools: [httpTool({ connection: 'github' }), mcpTool({ connection: 'google' })] }, { secretGrants: grants, egress: new EgressPolicy() })).toEqual([]);
  });

  it('refuses a tool naming a connection the manifest does not declare, or an auth of another shape', () => {
    expect(problemsOf({ connections: { github }, tools: [httpTool({ connection: 'gitlab' })] })).toEqual([
      { path: '$.tools[0].executor.auth.connection', message: 'names no connection of this manifest ("gitlab"); declared: github' },
    ]);
    expect(problemsOf({ tools: [mcpTool({ connection: 'github' })] })).toEqual([
      { path: '$.tools[0].executor.auth.connection', message: 'names no connection of this manifest ("github"); declare it under "connections"' },
    ]);
    expect(problemsOf({ connections: { github }, tools: [httpTool({ connection: 'github', token: 'x' })] }).map((p) => p.path)).toContain('$.tools[0].executor.auth');
    expect(problemsOf({ connections: { github }, tools: [httpTool('github')] }).map((p) => p.path)).toContain('$.tools[0].executor.auth');
  });

  it('refuses an inline client secret, a secret not granted to the tenant, and the gateway own variables', () => {
    expect(problemsOf({ connections: { github: { ...github, client_secret: 'ghs_live_value' } } }).map((p) => p.path)).toContain('$.connections.github.client_secret');
    const grants = SecretGrants.parse('other:ACME_GITHUB_SECRET');
    expect(problemsOf({ tenant: 'acme', connections: { github } }, { secretGrants: grants })).toEqual([
      { path: '$.connections.github.client_secret', message: 'secret ACME_GITHUB_SECRET is not granted to tenant "acme": the operator grants it in TOOLGATE_TENANT_SECRETS (e.g. "acme:ACME_GITHUB_SECRET")' },
    ]);
    expect(problemsOf({ tenant: 'acme', connections: { github: { ...github, client_secret: 'env:TOOLGATE_CONNECTION_KEYS' } } }).map((p) => p.message).join('\n')).toMatch(/TOOLGATE_CONNECTION_KEYS is one of the gateway's own variables/);
  });

  it('refuses endpoints the egress policy refuses, plain http off loopback, and credentials in URLs', () => {
    const policy = new EgressPolicy();
    const internal = { ...github, token_endpoint: 'http://169.254.169.254/latest/meta-data/iam' };
    const problems = problemsOf({ connections: { github: internal } }, { egress: policy });
    expect(problems.map((p) => p.path)).toEqual(['$.connections.github.token_endpoint', '$.connections.github.token_endpoint']);
    expect(problems[1]!.message).toMatch(/does not connect to 169\.254\.169\.254/);
    expect(problemsOf({ connections: { github: { ...github, authorization_endpoint: 'http://10.0.0.5/authorize' } } }, { egress: policy }).map((p) => p.message).join('\n')).toMatch(/does not connect to 10\.0\.0\.5/);
    expect(problemsOf({ connections: { github: { ...github, revocation_endpoint: 'http://idp.example.com/revoke' } } })).toEqual([
      { path: '$.connections.github.revocation_endpoint', message: 'revocation_endpoint must use https (plain http is accepted only for 127.0.0.1, [::1] or localhost): tokens are only as safe as the way their keys are fetched' },
    ]);
    expect(problemsOf({ connections: { github: { ...github, token_endpoint: 'https://u:p@github.com/token' } } }).map((p) => p.path)).toContain('$.connections.github.token_endpoint');
  });

  it('asks for the endpoints a connection without an issuer lacks, and refuses bad names and fields', () => {
    expect(problemsOf({ connections: { github: { client_id: 'x' } } })).toEqual([
      { path: '$.connections.github.authorization_endpoint', message: 'is required unless "issuer" is given (its discovery document then names it)' },
      { path: '$.connections.github.token_endpoint', message: 'is required unless "issuer" is given (its discovery document then names it)' },
    ]);
    expect(problemsOf({ connections: { crm: { grant: 'token_exchange', client_id: 'x' } } }).map((p) => p.path)).toEqual(['$.connections.crm.token_endpoint']);
    expect(problemsOf({ connections: { 'Git Hub': github } }).length).toBeGreaterThan(0);
    expect(problemsOf({ connections: { github: { ...github, surprise: 1 } } }).map((p) => p.path)).toContain('$.connections.github.surprise');
    expect(problemsOf({ connections: { github: { ...github, scopes: ['repo user'] } } }).map((p) => p.path)).toContain('$.connections.github.scopes[0]');
  });
});
