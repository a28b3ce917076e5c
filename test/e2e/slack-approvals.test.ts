import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { freePort, spawnNode, type Spawned } from '../helpers/processes.ts';
import { blockActionsPayload, signedInteraction, startFakeSlack, type FakeSlack } from '../support/fake-slack.ts';

const SIGNING_SECRET = 'slack-signing-secret-for-tests';
const APPROVER = 'U0ALICE';

type Block = { type: string; elements?: Array<{ action_id?: string; value?: string }> };
const buttonsOf = (blocks: unknown) => ((blocks as Block[]) ?? []).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);

/** The whole flow on the local gateway as a user runs it, with a fake Slack Web API on loopback. */
describe('approval through Slack on `toolgate serve`', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-slack-'));
  const workspace = join(dataDir, 'workspace');
  let slack: FakeSlack;
  let gateway: Spawned;
  let url: string;

  beforeAll(async () => {
    slack = await startFakeSlack();
    const port = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: {
        PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_WORKSPACE: workspace, TOOLGATE_EXEC_PORT: '0', TOOLGATE_DEMO_KEY: 'agent-key', TOOLGATE_DEMO_ADMIN_KEY: 'admin-key',
        SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.url,
        TOOLGATE_DEMO_SLACK_CHANNEL: 'C0APPROVALS', TOOLGATE_DEMO_SLACK_APPROVERS: `${APPROVER},U0BOB`,
      },
    });
    await gateway.waitFor(/toolgate listening/);
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await slack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('parks a write, posts two buttons, runs once on a signed Approve, updates the message, and the long-poll gets the result', async () => {
    const headers = { authorization: 'Bearer agent-key' };
    const dispatched = await (await fetch(`${url}/v1/dispatch`, { method: 'POST', headers, body: JSON.stringify({ thread_id: 'slack-1', calls: [{ call_id: 'w1', name: 'write_file', arguments: { file_path: 'notes/approved.txt', content: 'approved by a human\n' } }] }) })).json();
    const parked = dispatched.results[0];
    expect(parked.status).toBe('pending_approval');
    const approvalId = parked.error.details.approval_id;
    expect(existsSync(join(workspace, 'notes/approved.txt'))).toBe(false);

    const post = slack.calls.find((c) => c.method === 'chat.postMessage');
    expect(post?.body.channel).toBe('C0APPROVALS');
    expect(buttonsOf(post?.body.blocks).map((b) => [b.action_id, b.value])).toEqual([['toolgate_approve', approvalId], ['toolgate_reject', approvalId]]);

    const poll = fetch(`${url}/v1/calls/w1?thread_id=slack-1&wait=20`, { headers });
    const click = await signedInteraction({ signingSecret: SIGNING_SECRET, payload: blockActionsPayload({ decision: 'approve', approvalId, user: { id: APPROVER } }) });
    const started = Date.now();
    const response = await fetch(`${url}/v1/slack/interactions`, { method: 'POST', headers: click.headers, body: click.body });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);

    const polled = await (await poll).json();
    expect(polled).toMatchObject({ status: 'ok', result: { status: 'ok', content: 'Wrote 20 bytes to notes/approved.txt' } });
    expect(readFileSync(join(workspace, 'notes/approved.txt'), 'utf8')).toBe('approved by a human\n');

    const update = slack.calls.find((c) => c.method === 'chat.update');
    expect(update?.body).toMatchObject({ channel: 'C0APPROVALS', ts: expect.any(String) });
    expect(buttonsOf(update?.body.blocks)).toEqual([]);
    expect(JSON.stringify(update?.body.blocks)).toContain(`<@${APPROVER}>`);

    // The same webhook delivered again, and a second click: nothing runs twice.
    const again = await fetch(`${url}/v1/slack/interactions`, { method: 'POST', headers: click.headers, body: click.body });
    expect(again.status).toBe(200);
    expect((await again.json()).text).toContain('is executed');
    const audit = await (await fetch(`${url}/v1/audit?thread_id=slack-1`, { headers: { authorization: 'Bearer admin-key' } })).json();
    expect(audit.envelopes.filter((e: { type: string }) => e.type === 'tool.call.approval')).toHaveLength(1);
  });
});

/** The edge cases, on an in-process gateway with the same fake Slack. */
describe('Slack approvals: edge cases', () => {
  let slack: FakeSlack;
  let gw: Awaited<ReturnType<typeof testGateway>>;
  let runs = 0;

  beforeEach(async () => {
    runs = 0;
    slack = await startFakeSlack();
    const manifest = validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'review', execute: 'review' },
      approvals: { slack_channel: 'C0APPROVALS', approvers: [APPROVER, 'U0BOB'], ttl_seconds: 600 },
      tools: [{ name: 'ship', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
    });
    gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent', scopes: ['approvals:decide'] }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } }, {
      env: { SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.url },
    });
    const runtime = (await gw.tenants.runtime('acme'))!;
    const ship = runtime.registry.get('ship')!;
    runtime.registry.register({ ...ship, execute: async (args, ctx) => { runs++; return ship.execute(args, ctx); } }, { replace: true });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await slack.close();
  });

  const park = async (call_id = 's1', text = 'v1') => (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id, name: 'ship', arguments: { text } }] } })).json()).results[0];
  const click = async (approvalId: string, decision: 'approve' | 'reject', user = APPROVER, options: { timestamp?: number; tamper?: boolean } = {}) => {
    const signed = await signedInteraction({ signingSecret: SIGNING_SECRET, payload: blockActionsPayload({ decision, approvalId, user: { id: user } }), timestamp: options.timestamp });
    return gw.request('/v1/slack/interactions', { method: 'POST', headers: signed.headers, body: options.tamper ? signed.body.replace('approve', 'reject') : signed.body });
  };

  it('reject: the call ends denied, never runs, and the message shows who rejected', async () => {
    const id = (await park()).error.details.approval_id;
    expect((await click(id, 'reject')).status).toBe(200);
    expect(runs).toBe(0);
    expect(await park()).toMatchObject({ status: 'denied', content: `A human (${APPROVER}) rejected this call of \`ship\`. It did not run.` });
    const update = slack.calls.find((c) => c.method === 'chat.update');
    expect(buttonsOf(update?.body.blocks)).toEqual([]);
  });

  it('a double click runs the call once', async () => {
    const id = (await park()).error.details.approval_id;
    const [a, b] = await Promise.all([click(id, 'approve'), click(id, 'approve', 'U0BOB')]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(runs).toBe(1);
  });

  it('approve and reject racing: exactly one wins', async () => {
    const id = (await park()).error.details.approval_id;
    await Promise.all([click(id, 'approve'), click(id, 'reject', 'U0BOB'), gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'reject' } })]);
    const approval = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
    expect(['executed', 'rejected']).toContain(approval.state);
    expect(runs).toBe(approval.state === 'executed' ? 1 : 0);
  });

  it('forged signatures and stale timestamps are refused with 401, and nothing happens', async () => {
    const id = (await park()).error.details.approval_id;
    expect((await click(id, 'approve', APPROVER, { tamper: true })).status).toBe(401);
    expect((await click(id, 'approve', APPROVER, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    const unsigned = await gw.request('/v1/slack/interactions', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'payload=%7B%7D' });
    expect(unsigned.status).toBe(401);
    expect(runs).toBe(0);
    expect((await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json()).state).toBe('pending');
  });

  it('a user not on the approver list changes nothing', async () => {
    const id = (await park()).error.details.approval_id;
    const response = await click(id, 'approve', 'U0MALLORY');
    expect(response.status).toBe(200);
    expect((await response.json()).text).toBe('You are not on the approver list of tenant "acme", so your click changed nothing.');
    expect(runs).toBe(0);
    expect((await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json()).state).toBe('pending');
  });

  it('expiry: a click after the TTL changes nothing and the call ends expired', async () => {
    const id = (await park()).error.details.approval_id;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    const late = await click(id, 'approve', APPROVER, { timestamp: Math.floor(Date.now() / 1000) });
    expect((await late.json()).text).toContain('is expired');
    expect(runs).toBe(0);
    expect((await park()).status).toBe('expired');
  });

  it('changed arguments after approval need a new approval', async () => {
    const id = (await park('s1', 'v1')).error.details.approval_id;
    await click(id, 'approve');
    expect((await park('s1', 'v2')).status).toBe('conflict');
    const fresh = await park('s2', 'v2');
    expect(fresh.status).toBe('pending_approval');
    expect(fresh.error.details.approval_id).not.toBe(id);
    expect(runs).toBe(1);
  });

  it('Slack failing at first is retried; the approval is never lost', async () => {
    await slack.close();
    slack = await startFakeSlack({ failFirst: 2, error: 'ratelimited' });
    // The gateway was built with the old URL: build one on the failing fake.
    const manifest = (await gw.tenants.runtime('acme'))!.manifest;
    const flaky = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' } }, { env: { SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.url } });
    const parked = (await (await flaky.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: 'f1', name: 'ship', arguments: { text: 'x' } }] } })).json()).results[0];
    expect(parked.status).toBe('pending_approval');
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(3);
    const stored = await flaky.store.get(`approval/${parked.error.details.approval_id}`);
    expect(stored?.data.slack).toMatchObject({ channel: 'C0APPROVALS' });
  });
});
