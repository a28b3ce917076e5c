import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearProviderMetadata } from '../../lib/connections/provider-metadata.ts';
import { testGateway } from '../helpers/gateway.ts';
import { closedPort, startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest } from '../helpers/manifests.ts';

/**
 * Publishing a connection discovered from its issuer reads the issuer's metadata then, through
 * the egress policy: a document that names another issuer, or endpoints the gateway may not
 * reach (the cloud's metadata service), refuses the publish with the connection's path.
 */
let idp: TestServer;
let documents: Record<string, Record<string, unknown>>;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  idp = await startTestServer((request, response) => {
    const [, tenantPath] = /^\/(\w+)\/\.well-known\/openid-configuration$/.exec(request.url) ?? [];
    const document = tenantPath ? documents[tenantPath] : undefined;
    if (!document) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  const issuer = (name: string) => `${idp.url}/${name}`;
  documents = {
    good: { issuer: issuer('good'), authorization_endpoint: `${issuer('good')}/authorize`, token_endpoint: `${issuer('good')}/token`, authorization_response_iss_parameter_supported: true },
    metadata: { issuer: issuer('metadata'), authorization_endpoint: `${issuer('metadata')}/authorize`, token_endpoint: 'https://169.254.169.254/latest/meta-data/iam/security-credentials/' },
    cleartext: { issuer: issuer('cleartext'), authorization_endpoint: `${issuer('cleartext')}/authorize`, token_endpoint: 'http://tokens.idp.example/token' },
    other: { issuer: 'https://idp.elsewhere.example', authorization_endpoint: `${issuer('other')}/authorize`, token_endpoint: `${issuer('other')}/token` },
  };
  gw = await testGateway([], { admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] } });
});

afterAll(async () => {
  await idp?.close();
  clearProviderMetadata();
});

const publish = (issuer: string) =>
  gw.request('/v1/admin/manifests', { key: 'admin', json: baseManifest({ tenant: 'acme', version: `v${Math.random().toString(36).slice(2, 8)}`, connections: { idp: { issuer, client_id: 'toolgate', scopes: ['openid'] } } }) });

describe('publishing a connection discovered from its issuer', () => {
  it('accepts an issuer whose metadata names reachable endpoints', async () => {
    expect((await publish(`${idp.url}/good`)).status).toBe(201);
  });

  it('refuses metadata naming an endpoint the egress policy refuses, another issuer, or none at all', async () => {
    const internal = await publish(`${idp.url}/metadata`);
    expect(internal.status).toBe(400);
    const [problem] = (await internal.json()).error.problems;
    expect(problem.path).toBe('$.connections.idp.issuer');
    expect(problem.message).toMatch(/names the token_endpoint https:\/\/169\.254\.169\.254.*does not connect to 169\.254\.169\.254/);
    const other = (await (await publish(`${idp.url}/other`)).json()).error.problems[0];
    expect(other.message).toMatch(/names the issuer "https:\/\/idp\.elsewhere\.example"/);
    const missing = (await (await publish(`${idp.url}/absent`)).json()).error.problems[0];
    expect(missing.message).toMatch(/publishes no metadata/);
    const cleartext = (await (await publish(`${idp.url}/cleartext`)).json()).error.problems[0];
    expect(cleartext.message).toMatch(/names the token_endpoint "http:\/\/tokens\.idp\.example\/token": token_endpoint must use https/);
    const down = (await (await publish(`http://127.0.0.1:${await closedPort()}`)).json()).error.problems[0];
    expect(down.message).toMatch(/cannot read the issuer's metadata/);
  });
});
