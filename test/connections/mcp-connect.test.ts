import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGateway, URL_ELICITATION, type ServedGateway } from '../helpers/confirm-client.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';

/**
 * Over MCP, a call whose user has not connected yet: a 2026-07-28 client that takes URL-mode
 * elicitation gets the connect link as an input request for its user (the model never sees it);
 * any other client gets the result, whose text carries the link. Nothing reaches the tool.
 */
let tool: TestServer;
let served: ServedGateway;

beforeAll(async () => {
  tool = await startTestServer((_request, response) => void response.end('{}'));
  const gw = await testGateway(
    [validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'deny', execute: 'deny' },
      connections: { github: { authorization_endpoint: 'https://github.com/login/oauth/authorize', token_endpoint: 'https://github.com/login/oauth/access_token', client_id: 'Iv1.x', scopes: ['repo'] } },
      tools: [{ name: 'issues', description: 'lists my issues', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${tool.url}/issues`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'github' } } }],
    })],
    { agent: { tenant: 'acme', principal: 'alice' } },
    { env: { TOOLGATE_CONNECTION_KEYS: `k:${Buffer.alloc(32, 9).toString('base64url')}`, TOOLGATE_TENANT_SECRETS: 'acme:ACME_TOOL_SECRET', ACME_TOOL_SECRET: 'x' } },
  );
  served = await serveGateway(gw);
});

afterAll(async () => {
  await served?.close();
  await tool?.close();
});

describe('connect over MCP', () => {
  it('asks a client that takes URL elicitation to show its user the connect link', async () => {
    const answer = await served.rpc('tools/call', { name: 'issues', arguments: {} }, { capabilities: URL_ELICITATION });
    const result = answer.body.result as Record<string, unknown> & { inputRequests: Record<string, { method: string; params: { mode: string; url: string; message: string } }> };
    expect(result.resultType).toBe('input_required');
    const request = result.inputRequests['toolgate.connect']!;
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
    expect(request.params.url).toMatch(new RegExp(`^${served.url}/connect/acme/github\\?link=[\\w-]{43}$`));
    expect(request.params.message).toContain('"github"');
    expect(result._meta).toMatchObject({ 'toolgate/status': 'authorization_required' });
    expect(tool.requests).toHaveLength(0);
  });

  it('answers other clients with the result, whose text carries the link', async () => {
    const answer = await served.rpc('tools/call', { name: 'issues', arguments: {} });
    expect(answer.body.result).toMatchObject({ isError: true });
    expect(answer.body.result!.content![0]!.text).toMatch(new RegExp(`Open ${served.url}/connect/acme/github\\?link=[\\w-]{43} in a browser`));
    expect(tool.requests).toHaveLength(0);
  });
});
