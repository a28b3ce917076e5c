import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_WAITING_PER_PRINCIPAL } from '../../lib/limits/store-waits.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

let gw: Awaited<ReturnType<typeof testGateway>>;
let runs: number;

beforeEach(async () => {
  runs = 0;
  const tools = [{ name: 'echo', executor: { kind: 'builtin' } }, { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } }, required: ['text'] } }];
  const acme = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'review' }, tools });
  const beta = validManifest({ tenant: 'beta', policy: { read: 'grant', write: 'review', execute: 'review' }, tools });
  gw = await testGateway([acme, beta], {
    agent: { tenant: 'acme', principal: 'agent', scopes: ['approvals:decide'] },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] },
    viewer: { tenant: 'acme', principal: 'viewer', scopes: [] },
    admin: { tenant: 'acme', principal: 'root', scopes: ['admin', 'approvals:decide'] },
    beta: { tenant: 'beta', principal: 'beta-boss', scopes: ['approvals:decide', 'audit:read'] },
  });
  for (const tenant of ['acme', 'beta']) {
    const runtime = (await gw.tenants.runtime(tenant))!;
    const publish = runtime.registry.get('publish')!;
    runtime.registry.register({ ...publish, execute: async (args, ctx) => { runs++; return publish.execute(args, ctx); } }, { replace: true });
  }
});

const park = async (call_id = 'pub-1', args: Record<string, unknown> = { text: 'hello', token: 's3cret' }) => {
  const body = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id, name: 'publish', arguments: args }] } })).json();
  return body.results[0];
};
const decide = (id: string, key: string, json: unknown) => gw.request(`/v1/approvals/${id}`, { key, json });

describe('approvals over the API', () => {
  it('a write call parks; the approval is listed with sensitive arguments masked', async () => {
    const parked = await park();
    expect(parked.status).toBe('pending_approval');
    const id = parked.error.details.approval_id;
    const list = await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json();
    expect(list.approvals).toHaveLength(1);
    expect(list.approvals[0]).toMatchObject({ id, state: 'pending', tool: 'publish', requested_by: 'agent', arguments: { text: 'hello', token: '••••••' } });
    expect(list.approvals[0].call_key).toBeUndefined();
    expect((await (await gw.request(`/v1/approvals/${id}`, { key: 'agent' })).json()).state).toBe('pending');
    expect((await gw.request(`/v1/approvals/${id}`, { key: 'viewer' })).status).toBe(403);
  });

  it('approving runs the call once; the long-poll returns the result; a second decision conflicts', async () => {
    const id = (await park()).error.details.approval_id;
    const poll = gw.request('/v1/calls/pub-1?thread_id=th&wait=10', { key: 'agent' });
    await new Promise((r) => setTimeout(r, 100));
    const decided = await decide(id, 'alice', { decision: 'approve', reason: 'looks fine' });
    expect(decided.status).toBe(200);
    // The approver's reason reaches the model, after the tool's output.
    const withNote = 'hello\n\n[Approved by alice: "looks fine"]';
    expect(await decided.json()).toMatchObject({ approval: { state: 'executed', decided_by: 'alice', decided_via: 'api', decision_reason: 'looks fine', arguments: { token: '••••••' } }, result: { status: 'ok', content: withNote } });
    const polled = await (await poll).json();
    expect(polled).toMatchObject({ call_id: 'pub-1', thread_id: 'th', status: 'ok', result: { status: 'ok', content: withNote } });
    const again = await decide(id, 'alice', { decision: 'reject' });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: { code: 'conflict', message: `approval "${id}" is already executed (by alice)` } });
    expect(runs).toBe(1);
    const resent = await park();
    expect(resent).toMatchObject({ status: 'ok', replayed: true, content: withNote });
  });

  it('self-approval through the API is forbidden; rejection is allowed', async () => {
    const id = (await park()).error.details.approval_id;
    const self = await decide(id, 'agent', { decision: 'approve' });
    expect(self.status).toBe(403);
    expect((await self.json()).error.message).toBe('the principal that requested a call cannot approve it (nor can a key it minted or that minted its key); ask another approver');
    expect(runs).toBe(0);
    const poll = await (await gw.request('/v1/calls/pub-1?thread_id=th', { key: 'agent' })).json();
    expect(poll.status).toBe('pending_approval');
  });

  it('rejects bad decisions and needs the approvals:decide scope', async () => {
    const id = (await park()).error.details.approval_id;
    expect((await decide(id, 'alice', { decision: 'maybe' })).status).toBe(400);
    expect((await decide(id, 'viewer', { decision: 'approve' })).status).toBe(403);
    expect((await decide('apr_nope', 'alice', { decision: 'approve' })).status).toBe(404);
  });

  it("a key of tenant B cannot see or decide tenant A's approvals, calls or audit (404)", async () => {
    const id = (await park()).error.details.approval_id;
    expect((await gw.request(`/v1/approvals/${id}`, { key: 'beta' })).status).toBe(404);
    expect((await decide(id, 'beta', { decision: 'approve' })).status).toBe(404);
    expect((await (await gw.request('/v1/approvals', { key: 'beta' })).json()).approvals).toEqual([]);
    expect((await gw.request('/v1/calls/pub-1?thread_id=th', { key: 'beta' })).status).toBe(404);
    expect((await (await gw.request('/v1/audit?thread_id=th', { key: 'beta' })).json()).envelopes).toEqual([]);
    expect(runs).toBe(0);
  });

  it('GET /v1/calls answers 404 for unknown calls and 400 without thread_id', async () => {
    expect((await gw.request('/v1/calls/nope?thread_id=th', { key: 'agent' })).status).toBe(404);
    expect((await gw.request('/v1/calls/nope', { key: 'agent' })).status).toBe(400);
  });
});

describe('API keys', () => {
  it('an admin creates a key for its own tenant, shown once and stored hashed', async () => {
    const created = await gw.request('/v1/admin/keys', { key: 'admin', json: { principal: 'bob', scopes: ['approvals:decide'] } });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body).toMatchObject({ tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'], key: expect.stringMatching(/^tg_[0-9a-f]{48}$/) });
    const stored = JSON.stringify(await gw.store.get(`apikey/${await (await import('../../lib/crypto/sha256.ts')).sha256Hex(body.key)}`));
    expect(stored).not.toContain(body.key);
    const id = (await park()).error.details.approval_id;
    expect((await decide(id, body.key, { decision: 'approve' })).status).toBe(200);
  });

  it('only admins create keys, with valid names', async () => {
    expect((await gw.request('/v1/admin/keys', { key: 'alice', json: { principal: 'x', scopes: [] } })).status).toBe(403);
    expect((await gw.request('/v1/admin/keys', { key: 'admin', json: { principal: 'bad name!', scopes: [] } })).status).toBe(400);
  });
});

describe('waiting polls cannot be used to load the store', () => {
  it(`at most ${MAX_WAITING_PER_PRINCIPAL} waiting polls of one principal at once: a further one is 429 (one without wait answers); after they end, waiting works again`, async () => {
    await park();
    const waiting = Array.from({ length: MAX_WAITING_PER_PRINCIPAL }, () => gw.request('/v1/calls/pub-1?thread_id=th&wait=20', { key: 'agent' }));
    // Once all of them hold their place, the next waiting poll is refused.
    let refused = await gw.request('/v1/calls/pub-1?thread_id=th&wait=20', { key: 'agent' });
    for (let tries = 0; refused.status !== 429 && tries < 50; tries++) refused = await gw.request('/v1/calls/pub-1?thread_id=th&wait=20', { key: 'agent' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining(`at most ${MAX_WAITING_PER_PRINCIPAL} requests of one caller`) } });
    expect(await (await gw.request('/v1/calls/pub-1?thread_id=th', { key: 'agent' })).json()).toMatchObject({ status: 'pending_approval' });
    const [pending] = (await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json()).approvals;
    await decide(pending.id, 'alice', { decision: 'approve' });
    for (const polled of await Promise.all(waiting)) expect(await polled.json()).toMatchObject({ status: 'ok' });
    expect((await gw.request('/v1/calls/pub-1?thread_id=th&wait=20', { key: 'agent' })).status).toBe(200);
  });
});
