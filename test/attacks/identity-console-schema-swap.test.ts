import { describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

/**
 * A call parked while its tool marked `token` sensitive stays masked for reviewers after a newer
 * manifest version (activated while it waits) drops the mark: masking follows the version the
 * call was parked under as well as the active one.
 */
const ORIGIN = 'http://localhost';
const tool = (sensitive: boolean) => ({ name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', ...(sensitive ? { 'x-sensitive': true } : {}) } } } });
const version = (v: string, sensitive: boolean) => baseManifest({ tenant: 'acme', version: v, policy: { read: 'grant', write: 'review', execute: 'review' }, tools: [tool(sensitive)] });

/** A gateway whose version 1 marks `token` sensitive, and a call of `publish` parked under it with a secret token. */
async function parkUnderSensitiveVersion() {
    const gw = await testGateway([], {
      admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] },
      agent: { tenant: 'acme', principal: 'agent', scopes: [] },
      reviewer: { tenant: 'acme', principal: 'reviewer', scopes: ['approvals:decide'] },
    }, { manifestCacheMs: 0 });
    expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: version('1', true) })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/1/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'c1', name: 'publish', arguments: { text: 'x', token: 'PARKED-SECRET' } }] } })).json();
    const id = parked.results[0].error.details.approval_id;
  return { gw, id: id as string };
}

describe('console: masking after the manifest changes under a parked call', () => {
  it('a reviewer does not see a value that was sensitive when the call was parked', async () => {
    const { gw, id } = await parkUnderSensitiveVersion();
    expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: version('2', false) })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
    const signIn = await gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: 'credential=reviewer', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN } });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    for (const path of [`/console/approvals/${id}`, '/console/approvals']) {
      const page = await (await gw.app.request(`${ORIGIN}${path}`, { headers: { cookie } })).text();
      expect(page, path).toContain(id);
      expect(page, path).not.toContain('PARKED-SECRET');
    }
  });

  it('the API masks the same way, and a tool removed since keeps its parked version\'s masking', async () => {
    const { gw, id } = await parkUnderSensitiveVersion();
    const shown = async () => (await gw.request(`/v1/approvals/${id}`, { key: 'reviewer' })).text();
    expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: version('2', false) })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
    expect(await shown()).not.toContain('PARKED-SECRET');
    const listed = await (await gw.request('/v1/approvals?state=pending', { key: 'reviewer' })).text();
    expect(listed).toContain(id);
    expect(listed).not.toContain('PARKED-SECRET');
    // Version 3 has no such tool at all: the parked version still says what to mask.
    const without = { ...version('3', false), tools: [{ name: 'other', executor: { kind: 'builtin', name: 'echo' } }] };
    expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: without })).status).toBe(201);
    expect((await gw.request('/v1/admin/manifests/3/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
    const after = JSON.parse(await shown());
    expect(after.arguments).toEqual({ text: 'x', token: '••••••' });
  });
});
