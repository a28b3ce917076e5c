import { beforeEach, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Attacks on the console's masking of sensitive argument values: schemas that mark a field
 * sensitive in ways the masker must follow (a map of secrets, a choice of shapes), shown on the
 * approval card and in the audit trail.
 */
const ORIGIN = 'http://localhost';
const headerMap = { type: 'object', additionalProperties: { type: 'string', 'x-sensitive': true } };
const credential = { anyOf: [{ type: 'string', 'x-sensitive': true }, { type: 'object', properties: { password: { type: 'string', 'x-sensitive': true } } }] };
const callTool = {
  name: 'call_api',
  tier: 'write',
  executor: { kind: 'builtin', name: 'echo' },
  input_schema: { type: 'object', properties: { text: { type: 'string' }, headers: headerMap, credential, parts: { type: 'array', prefixItems: [{ type: 'string', 'x-sensitive': true }] }, all: { allOf: [{ type: 'string', 'x-sensitive': true }] } }, required: ['text'] },
};
const manifest = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'review' }, tools: [callTool] });

let gw: Awaited<ReturnType<typeof testGateway>>;
beforeEach(async () => {
  gw = await testGateway([manifest], {
    agent: { tenant: 'acme', principal: 'agent', scopes: [] },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read'] },
  });
});

async function signIn(key: string): Promise<string> {
  const response = await gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: new URLSearchParams({ credential: key }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN } });
  return response.headers.get('set-cookie')!.split(';')[0];
}
const get = async (path: string, cookie: string) => (await gw.app.request(`${ORIGIN}${path}`, { headers: { cookie } })).text();

describe('console: sensitive values behind additionalProperties, anyOf, allOf, prefixItems', () => {
  it('are masked on the approval card and never reach the audit trail', async () => {
    const args = { text: 'hi', headers: { authorization: 'Bearer HEADER-SECRET' }, credential: 'ANYOF-SECRET', parts: ['PREFIX-SECRET'], all: 'ALLOF-SECRET' };
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'c1', name: 'call_api', arguments: args }] } })).json();
    const id = parked.results[0].error.details.approval_id;
    const cookie = await signIn('alice');
    const card = await get(`/console/approvals/${id}`, cookie);
    const audit = await get('/console/audit?thread_id=th', cookie);
    expect(card).toContain('call_api');
    expect(audit).toContain('data-chain="intact"');
    for (const secret of ['HEADER-SECRET', 'ANYOF-SECRET', 'PREFIX-SECRET', 'ALLOF-SECRET']) {
      expect(card, secret).not.toContain(secret);
      expect(audit, secret).not.toContain(secret);
    }
  });

  it('an object branch of anyOf masks its own sensitive property', async () => {
    const args = { text: 'hi', credential: { password: 'NESTED-SECRET' } };
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th2', calls: [{ call_id: 'c1', name: 'call_api', arguments: args }] } })).json();
    const id = parked.results[0].error.details.approval_id;
    const cookie = await signIn('alice');
    expect(await get(`/console/approvals/${id}`, cookie)).not.toContain('NESTED-SECRET');
  });
});
