import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idempotencyKeyFor } from '../../lib/idempotency/keys.ts';
import type { ApprovalSettings } from '../../lib/registry/manifest/manifest.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { blockActionsPayload, signedInteraction, startFakeSlack, type FakeSlack } from '../support/fake-slack.ts';

const SIGNING_SECRET = 'slack-signing-secret-for-tests';
type Block = { type: string; text?: { text: string }; elements?: Array<{ action_id?: string; value?: string }> };
const buttonsOf = (blocks: unknown) => ((blocks as Block[]) ?? []).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);
const textOf = (blocks: unknown) => JSON.stringify(blocks);

/** Four-eyes, reminders, escalation and expiry through Slack, on an in-process gateway with the fake Slack Web API. */
describe('Slack four-eyes approvals', () => {
  let slack: FakeSlack;
  let gw: Awaited<ReturnType<typeof testGateway>>;
  let runs = 0;
  const MAPPED = { U0ALICE: 'alice', U0BOB: 'bob' };

  const start = async (approvals: ApprovalSettings) => {
    const manifest = validManifest({
      tenant: 'acme',
      policy: { write: 'review' },
      approvals: { slack_channel: 'C0APPROVALS', approvers: ['U0ALICE', 'U0BOB', 'U0AGENT'], ttl_seconds: 600, quorum: 2, ...approvals },
      tools: [{ name: 'ship', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
    });
    gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent', scopes: ['approvals:decide', 'audit:read'] }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } }, {
      env: { SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.url },
    });
    const runtime = (await gw.tenants.runtime('acme'))!;
    const ship = runtime.registry.get('ship')!;
    runtime.registry.register({ ...ship, execute: async (args, ctx) => { runs++; return ship.execute(args, ctx); } }, { replace: true });
  };

  beforeEach(async () => {
    runs = 0;
    slack = await startFakeSlack();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await slack.close();
  });

  const park = async (call_id = 's1') => (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id, name: 'ship', arguments: { text: 'v1' } }] } })).json()).results[0];
  const click = async (approvalId: string, decision: 'approve' | 'reject', user: string) => {
    const signed = await signedInteraction({ signingSecret: SIGNING_SECRET, payload: blockActionsPayload({ decision, approvalId, user: { id: user } }), timestamp: Math.floor(Date.now() / 1000) });
    return gw.request('/v1/slack/interactions', { method: 'POST', headers: signed.headers, body: signed.body });
  };
  const requestMessage = () => [...slack.messages.values()].find((m) => m.channel === 'C0APPROVALS')!;
  const posts = (channel?: string) => slack.calls.filter((c) => c.method === 'chat.postMessage' && (!channel || c.body.channel === channel));

  it('two approvers in Slack: the message shows "1 of 2 approvals" with its buttons, a second click by the same user counts nothing, the second approver runs it once and the message lists both', async () => {
    await start({ slack_principals: MAPPED });
    const id = (await park()).error.details.approval_id;
    expect(textOf(requestMessage().blocks)).toContain('0 of 2 approvals');

    expect((await click(id, 'approve', 'U0ALICE')).status).toBe(200);
    expect(runs).toBe(0);
    const progressed = requestMessage();
    expect(progressed.updates).toBe(1);
    expect(textOf(progressed.blocks)).toContain('1 of 2 approvals');
    expect(textOf(progressed.blocks)).toContain('Approved by <@U0ALICE> (alice) in Slack');
    expect(buttonsOf(progressed.blocks).map((b) => b.action_id)).toEqual(['toolgate_approve', 'toolgate_reject']);

    const again = await (await click(id, 'approve', 'U0ALICE')).json();
    expect(again.text).toBe(`You already approved ${id}; it needs approvals from others (1 of 2 so far).`);

    expect((await click(id, 'approve', 'U0BOB')).status).toBe(200);
    expect(runs).toBe(1);
    const decided = requestMessage();
    expect(buttonsOf(decided.blocks)).toEqual([]);
    expect(textOf(decided.blocks)).toContain('2 of 2 approvals');
    expect(textOf(decided.blocks)).toContain('1. Approved by <@U0ALICE> (alice) in Slack');
    expect(textOf(decided.blocks)).toContain('2. Approved by <@U0BOB> (bob) in Slack');
    expect(await park()).toMatchObject({ status: 'ok', replayed: true });
  });

  it('a rejection by the second approver after one approval ends it, and the message says who did what', async () => {
    await start({ slack_principals: MAPPED });
    const id = (await park()).error.details.approval_id;
    await click(id, 'approve', 'U0ALICE');
    await click(id, 'reject', 'U0BOB');
    expect(runs).toBe(0);
    expect(await park()).toMatchObject({ status: 'denied' });
    const blocks = textOf(requestMessage().blocks);
    expect(blocks).toContain('1. Approved by <@U0ALICE> (alice) in Slack');
    expect(blocks).toContain('2. Rejected by <@U0BOB> (bob) in Slack');
  });

  it('with a quorum, an unmapped Slack user cannot approve (one person could count once in Slack and once through the API), but can reject', async () => {
    await start({});
    const id = (await park()).error.details.approval_id;
    const refused = await (await click(id, 'approve', 'U0ALICE')).json();
    expect(refused.text).toContain('ask the tenant admin to add U0ALICE to approvals.slack_principals');
    const shown = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
    expect(shown).toMatchObject({ state: 'pending', decisions: [] });
    expect((await click(id, 'reject', 'U0BOB')).status).toBe(200);
    expect(await park()).toMatchObject({ status: 'denied' });
    expect(runs).toBe(0);
  });

  it('mapped Slack users decide as their principal: the requester cannot count in Slack, and an approver cannot count twice across Slack and the API', async () => {
    await start({ slack_principals: { U0AGENT: 'agent', U0ALICE: 'alice' } });
    const id = (await park()).error.details.approval_id;
    const self = await (await click(id, 'approve', 'U0AGENT')).json();
    expect(self.text).toBe('You requested this call, so your approval cannot count; ask another approver.');
    expect((await click(id, 'approve', 'U0ALICE')).status).toBe(200);
    const viaApi = await gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } });
    expect(viaApi.status).toBe(409);
    expect((await viaApi.json()).error.code).toBe('already_decided');
    const shown = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
    expect(shown).toMatchObject({ state: 'pending', decisions: [{ by: 'alice', via: 'slack', slack_user: 'U0ALICE' }] });
    expect(runs).toBe(0);
  });

  it('the sweep reminds once, as a thread reply on the request, and escalates with buttons that work', async () => {
    await start({ remind_before_seconds: 300, escalation_channel: 'C0ESCALATE', slack_principals: MAPPED });
    const id = (await park()).error.details.approval_id;
    await click(id, 'approve', 'U0ALICE');
    const request = requestMessage();

    expect(await gw.sweep()).toEqual({ reminded: 0, expired: 0, dropped: 0, failed: 0 });
    expect(posts()).toHaveLength(1);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 301_000);
    expect(await gw.sweep()).toMatchObject({ reminded: 1, expired: 0 });
    const reminder = posts('C0APPROVALS').at(-1)!;
    expect(reminder.body).toMatchObject({ channel: 'C0APPROVALS', thread_ts: request.ts });
    expect(String(reminder.body.text)).toContain('Reminder: this approval of `ship` is still waiting (1 of 2 approvals so far)');
    const escalation = posts('C0ESCALATE');
    expect(escalation).toHaveLength(1);
    expect(String(escalation[0].body.text)).toContain('Escalated: approval needed');
    expect(buttonsOf(escalation[0].body.blocks).map((b) => [b.action_id, b.value])).toEqual([['toolgate_approve', id], ['toolgate_reject', id]]);

    // Once: later sweeps (and sweeps racing) send nothing more.
    vi.setSystemTime(Date.now() + 10_000);
    expect(await Promise.all([gw.sweep(), gw.sweep()])).toEqual([{ reminded: 0, expired: 0, dropped: 0, failed: 0 }, { reminded: 0, expired: 0, dropped: 0, failed: 0 }]);
    expect(posts()).toHaveLength(3);

    // A click on the escalated request counts like any other and settles both messages.
    expect((await click(id, 'approve', 'U0BOB')).status).toBe(200);
    expect(runs).toBe(1);
    const escalated = [...slack.messages.values()].find((m) => m.channel === 'C0ESCALATE')!;
    expect(buttonsOf(escalated.blocks)).toEqual([]);
    expect(buttonsOf(requestMessage().blocks)).toEqual([]);
  });

  it('expiry by the sweep, with nobody reading: terminal, audited, shown in Slack, and seen by the long-poll and by re-sending', async () => {
    await start({ slack_principals: MAPPED });
    const id = (await park()).error.details.approval_id;
    await click(id, 'approve', 'U0ALICE');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);

    expect(await gw.sweep()).toEqual({ reminded: 0, expired: 1, dropped: 0, failed: 0 });
    // Settled by the sweep alone: the call's record holds the `expired` result before anyone asked.
    const key = idempotencyKeyFor('call', { tenant: 'acme', thread_id: 't', call_id: 's1', tool: '', args_hash: '' })!;
    expect(await gw.store.get(key)).toMatchObject({ state: 'completed', data: { result: { status: 'expired' } } });
    expect((await gw.store.get(`approval/${id}`))?.data).toMatchObject({ state: 'expired' });
    expect(textOf(requestMessage().blocks)).toContain('Nobody decided before');
    expect(buttonsOf(requestMessage().blocks)).toEqual([]);

    const audit = await (await gw.request('/v1/audit?thread_id=t', { key: 'agent' })).json();
    const approvals = audit.envelopes.filter((e: { type: string }) => e.type === 'tool.call.approval');
    expect(approvals.map((e: { principal: string; data: { state: string } }) => [e.principal, e.data.state])).toEqual([['alice', 'pending'], ['toolgate', 'expired']]);
    expect(audit.envelopes.at(-1)).toMatchObject({ type: 'tool.call.result', data: { status: 'expired' } });

    const polled = await (await gw.request('/v1/calls/s1?thread_id=t&wait=5', { key: 'agent' })).json();
    expect(polled).toMatchObject({ status: 'expired', result: { status: 'expired', error: { code: 'expired' } } });
    expect(await park()).toMatchObject({ status: 'expired' });
    expect((await click(id, 'approve', 'U0BOB')).status).toBe(200);
    expect(runs).toBe(0);
    // Its index entry is gone: the next sweep finds nothing.
    expect(await gw.sweep()).toEqual({ reminded: 0, expired: 0, dropped: 0, failed: 0 });
  });

  it('the sweep drops decided approvals from its index without touching them', async () => {
    await start({ quorum: 1 });
    const id = (await park()).error.details.approval_id;
    await click(id, 'approve', 'U0ALICE');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    const before = await gw.store.get(`approval/${id}`);
    expect(await gw.sweep()).toEqual({ reminded: 0, expired: 0, dropped: 1, failed: 0 });
    expect(await gw.store.get(`approval/${id}`)).toEqual(before);
  });
});
