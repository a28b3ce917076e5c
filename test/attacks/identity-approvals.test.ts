import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

/**
 * Attacks on four-eyes: one person counting twice, or a requester counting, by spelling the same
 * principal differently across an API key and a token from the tenant's identity provider.
 */
const AUDIENCE = 'https://tools.example.com/mcp';
let idp: LocalIssuer;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const tools = [{ name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, approvals: { quorum: 2 } }];
  gw = await testGateway(
    [validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'deny' }, tools, identity: { oidc: { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri } } })],
    { agent: { tenant: 'acme', principal: 'agent', scopes: [] }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] }, bob: { tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'] } },
  );
});
afterAll(() => idp.close());

async function park(callId: string): Promise<string> {
  const body = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'four-eyes', calls: [{ call_id: callId, name: 'publish', arguments: { text: callId } }] } })).json();
  expect(body.results[0].status).toBe('pending_approval');
  return /apr_[0-9a-f]{24}/.exec(body.results[0].content)![0];
}
const decide = async (id: string, credential: string) => gw.request(`/v1/approvals/${id}?tenant=acme`, { key: credential, json: { decision: 'approve' } });
const tokenFor = (sub: string) => idp.sign({ sub, scope: 'approvals:decide' });

describe('attacks: four-eyes by another spelling', () => {
  it('an approver counts once whatever the case, spaces or Unicode form of their name; the call never runs on one person', async () => {
    for (const [i, spelling] of ['Alice', 'alice ', 'ａｌｉｃｅ', 'ali\u200Bce'].entries()) {
      const id = await park(`twice-${i}`);
      expect((await decide(id, 'alice')).status).toBe(200);
      const again = await decide(id, await tokenFor(spelling));
      expect(again.status, JSON.stringify(spelling)).toBe(409);
      expect((await again.json()).error.code).toBe('already_decided');
      const approval = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
      expect(approval).toMatchObject({ state: 'pending' });
      expect(approval.decisions).toHaveLength(1);
    }
  });

  it('the requester cannot count under another spelling of its name', async () => {
    const id = await park('self');
    for (const spelling of ['Agent', ' agent', 'ＡＧＥＮＴ']) {
      const self = await decide(id, await tokenFor(spelling));
      expect(self.status, spelling).toBe(403);
    }
    // Two different people still make the quorum.
    expect((await decide(id, 'alice')).status).toBe(200);
    const second = await (await decide(id, 'bob')).json();
    expect(second.approval.state).toBe('executed');
  });
});
