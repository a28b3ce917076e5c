import { beforeEach, describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

let gw: Awaited<ReturnType<typeof testGateway>>;
let runs: number;

const schema = { type: 'object', properties: { text: { type: 'string' }, table: { type: 'string' } }, required: ['text'] };

beforeEach(async () => {
  runs = 0;
  const manifest = validManifest({
    tenant: 'acme',
    policy: { write: 'review', rules: [{ tool: 'publish', arguments: { table: 'prod_.*' }, action: 'review', approvals: { quorum: 3 } }] },
    tools: [
      { name: 'publish', tier: 'write', approvals: { quorum: 2 }, executor: { kind: 'builtin', name: 'echo' }, input_schema: schema },
      { name: 'note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: schema },
    ],
  });
  const decide = ['approvals:decide'];
  gw = await testGateway([manifest], {
    agent: { tenant: 'acme', principal: 'agent', scopes: [...decide, 'audit:read'] },
    alice: { tenant: 'acme', principal: 'alice', scopes: decide },
    bob: { tenant: 'acme', principal: 'bob', scopes: decide },
    carol: { tenant: 'acme', principal: 'carol', scopes: decide },
  });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const publish = runtime.registry.get('publish')!;
  runtime.registry.register({ ...publish, execute: async (args, ctx) => { runs++; return publish.execute(args, ctx); } }, { replace: true });
});

const park = async (call_id = 'p1', args: Record<string, unknown> = { text: 'hello' }, name = 'publish') =>
  (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id, name, arguments: args }] } })).json()).results[0];
const decide = (id: string, key: string, json: unknown) => gw.request(`/v1/approvals/${id}`, { key, json });

describe('four-eyes approvals over the API', () => {
  it('a quorum of two: the first approval answers its progress without a result, the second runs the call once; GET shows every decision', async () => {
    const id = (await park()).error.details.approval_id;
    const poll = gw.request('/v1/calls/p1?thread_id=th&wait=10', { key: 'agent' });
    const first = await decide(id, 'alice', { decision: 'approve', reason: 'copy checked' });
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    expect(firstBody.result).toBeUndefined();
    expect(firstBody.approval).toMatchObject({ state: 'pending', quorum: 2, progress: { approvals: 1, quorum: 2 }, decisions: [{ decision: 'approve', by: 'alice', via: 'api', reason: 'copy checked' }] });
    expect(firstBody.approval.revision).toBeUndefined();
    expect(runs).toBe(0);
    const shown = await (await gw.request(`/v1/approvals/${id}`, { key: 'carol' })).json();
    expect(shown).toMatchObject({ state: 'pending', quorum: 2, progress: { approvals: 1, quorum: 2 } });

    const second = await (await decide(id, 'bob', { decision: 'approve' })).json();
    expect(second).toMatchObject({ approval: { state: 'executed', progress: { approvals: 2, quorum: 2 }, decisions: [{ by: 'alice' }, { by: 'bob' }] }, result: { status: 'ok' } });
    expect(runs).toBe(1);
    const polled = await (await poll).json();
    expect(polled).toMatchObject({ status: 'ok', result: { content: 'hello\n\n[Approved by alice: "copy checked"; bob]' } });

    const audit = await (await gw.request('/v1/audit?thread_id=th', { key: 'agent' })).json();
    const approvals = audit.envelopes.filter((e: { type: string }) => e.type === 'tool.call.approval');
    expect(approvals.map((e: { principal: string; data: { state: string; approvals: number; quorum: number } }) => [e.principal, e.data.state, e.data.approvals, e.data.quorum])).toEqual([['alice', 'pending', 1, 2], ['bob', 'approved', 2, 2]]);
  });

  it('the requester cannot count and the same approver twice is refused (already_decided); neither changes the approval', async () => {
    const id = (await park()).error.details.approval_id;
    expect((await decide(id, 'agent', { decision: 'approve' })).status).toBe(403);
    expect((await decide(id, 'alice', { decision: 'approve' })).status).toBe(200);
    const twice = await decide(id, 'alice', { decision: 'approve' });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toEqual({ error: { code: 'already_decided', message: `alice already approved approval "${id}"; it needs 1 more approval from other approvers (a principal counts once, with keys minted from its key)` } });
    const shown = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
    expect(shown.decisions).toHaveLength(1);
    expect(runs).toBe(0);
  });

  it('a rejection by the second approver after one approval ends it: denied with the reason, never run', async () => {
    const id = (await park()).error.details.approval_id;
    await decide(id, 'alice', { decision: 'approve' });
    const rejected = await (await decide(id, 'bob', { decision: 'reject', reason: 'wrong audience' })).json();
    expect(rejected).toMatchObject({ approval: { state: 'rejected', decided_by: 'bob', decisions: [{ by: 'alice', decision: 'approve' }, { by: 'bob', decision: 'reject', reason: 'wrong audience' }] }, result: { status: 'denied' } });
    expect(runs).toBe(0);
    expect(await park()).toMatchObject({ status: 'denied', content: 'A human (bob) rejected this call of `publish`: wrong audience. It did not run.' });
    expect((await decide(id, 'carol', { decision: 'approve' })).status).toBe(409);
  });

  it('the largest quorum that applies wins: a matching review rule raises the tool\'s two to three; a tool without a setting needs one', async () => {
    expect((await park('p2', { text: 'x', table: 'prod_users' })).error.details).toMatchObject({ approval_id: expect.any(String) });
    const list = await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json();
    expect(list.approvals.map((a: { call_id: string; quorum: number }) => [a.call_id, a.quorum])).toEqual([['p2', 3]]);
    const note = (await park('n1', { text: 'x' }, 'note')).error.details.approval_id;
    expect((await (await gw.request(`/v1/approvals/${note}`, { key: 'alice' })).json()).quorum).toBe(1);
  });
});
