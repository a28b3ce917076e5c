import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

/**
 * Attacks on four-eyes through names (issue 22, finding 10): one visible name counting twice
 * because it normalises differently in two spellings, names that differ only by case folding, and
 * look-alike names, which a tenant may refuse. Principals come from tokens of the tenant's identity
 * provider, whose names are whatever the claim holds.
 */
const AUDIENCE = 'https://tools.example.com/mcp';
let idp: LocalIssuer;
let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  idp = await startLocalIssuer({ audience: AUDIENCE });
  const tools = [{ name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, approvals: { quorum: 2 } }];
  const tenant = (name: string, approvals: Record<string, unknown> = {}) =>
    validManifest({ tenant: name, policy: { read: 'grant', write: 'review', execute: 'deny' }, tools, approvals, identity: { oidc: { issuer: idp.issuer, audience: AUDIENCE, jwks_uri: idp.jwksUri } } });
  gw = await testGateway([tenant('acme'), tenant('strict', { confusable_names: 'refuse' })], {
    agent: { tenant: 'acme', principal: 'agent', scopes: [] },
    'strict-agent': { tenant: 'strict', principal: 'agent', scopes: [] },
    'acme-reader': { tenant: 'acme', principal: 'reader', scopes: ['approvals:read'] },
  });
});
afterAll(() => idp.close());

const token = (sub: string) => idp.sign({ sub, scope: 'approvals:decide' });

async function park(tenant: string, credential: string, callId: string) {
  const body = await (await gw.request(`/v1/dispatch?tenant=${tenant}`, { key: credential, json: { thread_id: 'names', calls: [{ call_id: callId, name: 'publish', arguments: { text: callId } }] } })).json();
  return body.results[0] as { status: string; content: string; error?: { details: Record<string, unknown> } };
}
async function parked(tenant: string, credential: string, callId: string): Promise<string> {
  const result = await park(tenant, credential, callId);
  expect(result.status).toBe('pending_approval');
  return String(result.error!.details.approval_id);
}
const decide = async (tenant: string, id: string, credential: string) => gw.request(`/v1/approvals/${id}?tenant=${tenant}`, { key: credential, json: { decision: 'approve' } });
const stateOf = async (tenant: string, id: string) => (await (await gw.request(`/v1/approvals/${id}?tenant=${tenant}`, { key: await token('reader') })).json()).state;

describe('attacks: one name counted twice', () => {
  it('"josé" (U+00E9) and "jose" + U+200D + U+0301 are one approver: a quorum of 2 is not met and the call does not run', async () => {
    const id = await parked('acme', 'agent', 'jose');
    expect((await decide('acme', id, await token('jos\u00e9'))).status).toBe(200);
    const second = await decide('acme', id, await token('jose\u200d\u0301'));
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe('already_decided');
    expect(await stateOf('acme', id)).toBe('pending');
  });

  it('names equal under full case folding are one approver: Straße/STRASSE/STRAẞE, ΟΔΟΣ/οδος, fullwidth', async () => {
    for (const [i, [first, again]] of [['Straße', 'STRASSE'], ['strasse', 'STRAẞE'], ['ΟΔΟΣ', 'οδοσ'], ['Ｊｏｓé', 'JOSE\u0301']].entries()) {
      const id = await parked('acme', 'agent', `fold-${i}`);
      expect((await decide('acme', id, await token(first))).status).toBe(200);
      const second = await decide('acme', id, await token(again));
      expect(second.status, `${first} then ${again}`).toBe(409);
      expect(await stateOf('acme', id)).toBe('pending');
    }
  });

  it('a requester cannot approve its own call under a case-folded spelling of its name', async () => {
    const id = await parked('acme', await token('Straße'), 'self-fold');
    const self = await decide('acme', id, await token('STRASSE'));
    expect(self.status).toBe(403);
    expect(await stateOf('acme', id)).toBe('pending');
  });

  it('two different people still make the quorum', async () => {
    const id = await parked('acme', 'agent', 'two-people');
    expect((await decide('acme', id, await token('josé'))).status).toBe(200);
    const second = await (await decide('acme', id, await token('josefa'))).json();
    expect(second.approval.state).toBe('executed');
  });
});

describe('attacks: look-alike names', () => {
  it('by default a look-alike name is another person (shown marked), so it can approve', async () => {
    const id = await parked('acme', 'agent', 'lookalike-default');
    expect((await decide('acme', id, await token('alice'))).status).toBe(200);
    expect((await decide('acme', id, await token('\u0430lice'))).status).toBe(200);
    expect(await stateOf('acme', id)).toBe('executed');
  });

  it('a tenant refusing confusable names: mixed scripts, a Hangul filler or U+034F cannot approve; a plain name can', async () => {
    const id = await parked('strict', 'strict-agent', 'refused');
    for (const [name, words] of [['\u0430lice', 'mixes scripts'], ['al\u3164ice', 'has invisible characters'], ['al\u034fice', 'has invisible characters']]) {
      const refused = await decide('strict', id, await token(name));
      expect(refused.status, name).toBe(403);
      expect((await refused.json()).error.message).toContain(words);
    }
    expect((await decide('strict', id, await token('alice'))).status).toBe(200);
    expect(await stateOf('strict', id)).toBe('pending');
  });

  it('a tenant refusing confusable names denies their calls instead of parking them (nobody could approve them)', async () => {
    const result = await park('strict', await token('b\u043eb'), 'denied');
    expect(result.status).toBe('denied');
    expect(result.content).toContain('confusable');
    expect(result.error!.details).toMatchObject({ confusable_name: true });
    expect((await (await gw.request('/v1/approvals?tenant=strict', { key: await token('reader') })).json()).approvals.filter((a: { call_id: string }) => a.call_id === 'denied')).toEqual([]);
  });
});

describe('look-alike names on screen', () => {
  const ORIGIN = 'http://localhost';
  it('the console marks a look-alike requester and an approver with an invisible character, spelled out', async () => {
    const id = await parked('acme', await token('b\u043eb'), 'console-mark');
    expect((await decide('acme', id, await token('al\u200dice'))).status).toBe(200);
    const signIn = await gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: 'credential=acme-reader', headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' } });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const page = await (await gw.app.request(`${ORIGIN}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(page).toContain('<dt>Requested by</dt><dd><mark data-role="confusable">b\u043eb ⚠ mixes scripts</mark></dd>');
    expect(page).toContain('<mark data-role="confusable">al⟨U+200D⟩ice ⚠ has invisible characters</mark>');
  });
});

