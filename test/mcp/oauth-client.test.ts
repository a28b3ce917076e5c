import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

/**
 * The official MCP SDK client's own authorization flow against the gateway, offline: the 401's
 * resource_metadata leads it to /.well-known/oauth-protected-resource/mcp/acme, that to the
 * tenant's issuer (a local authorization server), whose token endpoint gives it a JWT
 * (client_credentials), with which it lists and calls tools through /mcp/acme.
 */
const AUDIENCE = 'https://tools.example.com/mcp/acme';
let idp: LocalIssuer;
let server: ServerType;
let gatewayUrl: string;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const tools = [
    { name: 'echo', executor: { kind: 'builtin' } },
    { name: 'billing', scopes: ['billing:read'], executor: { kind: 'builtin', name: 'echo' } },
  ];
  const gw = await testGateway([validManifest({ tenant: 'acme', tools, identity: { oidc: { issuer: idp.issuer, audience: AUDIENCE } } })], {});
  server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: gw.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await idp.close();
});

const connect = async (clientId: string, secret: string) => {
  const authProvider = new ClientCredentialsProvider({ clientId, clientSecret: secret, expectedIssuer: idp.issuer });
  const client = new Client({ name: 'oauth-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp/acme`), { authProvider }));
  return { client, authProvider };
};

describe('the MCP SDK client signs in through discovery', () => {
  it('discovers the issuer from the 401, gets a token, lists and calls tools', async () => {
    idp.client('agent-app', 'app-secret', []);
    const { client, authProvider } = await connect('agent-app', 'app-secret');
    try {
      expect(authProvider.tokens()?.access_token).toMatch(/^ey/);
      // The client named the gateway's MCP endpoint as the resource it wants a token for (RFC 8707).
      expect(idp.resources.at(-1)).toBe(`${gatewayUrl}/mcp/acme`);
      const { tools } = await client.listTools();
      // billing needs billing:read, which this token lacks: it is not listed (GET /v1/tools and search agree).
      expect(tools.map((t) => t.name).sort()).toEqual(['echo']);
      expect((await client.callTool({ name: 'echo', arguments: { text: 'signed in' } })).content).toEqual([{ type: 'text', text: 'signed in' }]);
    } finally {
      await client.close();
    }
  });

  it('a missing scope is a 403 insufficient_scope; once the provider grants it, the client steps up and the call runs', async () => {
    idp.client('reporting-app', 'r-secret', []);
    const { client } = await connect('reporting-app', 'r-secret');
    try {
      await expect(client.callTool({ name: 'billing', arguments: { text: 'invoice' } })).rejects.toThrow(/403 after trying upscoping/);
      idp.client('reporting-app', 'r-secret', ['billing:read']);
      expect((await client.callTool({ name: 'echo', arguments: { text: 'still in' } })).isError).toBe(false);
      const stepped = await client.callTool({ name: 'billing', arguments: { text: 'invoice' } });
      expect(stepped).toMatchObject({ isError: false, content: [{ type: 'text', text: 'invoice' }] });
      // With the scope, the tool is listed too.
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['billing', 'echo']);
    } finally {
      await client.close();
    }
  });

  it('a client the provider refuses never gets in', async () => {
    const before = idp.server.requests.filter((r) => r.url === '/token').length;
    // (This SDK version reports the authorization server's invalid_client as an unreadable OAuth error.)
    await expect(connect('stranger', 'guess')).rejects.toThrow(/OAuth error/);
    expect(idp.server.requests.filter((r) => r.url === '/token').length).toBe(before + 1);
  });
});
