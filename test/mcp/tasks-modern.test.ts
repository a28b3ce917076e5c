import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.ts';

/**
 * Approvals as tasks over MCP 2026-07-28 (the Tasks extension, `io.modelcontextprotocol/tasks`),
 * as raw HTTP: the official SDK v2 client (2.4.0) has no Tasks runtime. A client that declares
 * the extension on its tools/call gets a task for a call that parks; it polls tasks/get (with
 * Mcp-Name: the task id) until the approvers decide, and tasks/cancel withdraws the approval.
 */

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const WITH_TASKS = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

let gw: Awaited<ReturnType<typeof testGateway>>;
let slack: FakeSlack;
let runs = 0;

beforeEach(async () => {
  runs = 0;
  slack = await startFakeSlack();
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'review', execute: 'deny' },
    approvals: { slack_channel: 'C0APPROVALS', ttl_seconds: 600 },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ],
  });
  const keys = {
    agent: { tenant: 'acme', principal: 'agent' },
    mallory: { tenant: 'acme', principal: 'mallory' },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read'] },
    other: { tenant: 'globex', principal: 'agent' },
  };
  gw = await testGateway([manifest, validManifest({ tenant: 'globex' })], keys, { env: { SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.url } });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const save = runtime.registry.get('save_note')!;
  runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; return save.execute(args, ctx); } }, { replace: true });
});
afterEach(async () => {
  vi.useRealTimers();
  await slack.close();
});

interface Answer {
  status: number;
  body: { id?: unknown; result?: Record<string, unknown> & { result?: { content: Array<{ text: string }>; isError: boolean } }; error?: { code: number; message: string; data?: unknown } };
}

let nextId = 1;
/** A 2026-07-28 request with the standard headers a client sends (Mcp-Name: the tool, or the task id). */
async function rpc(method: string, params: Record<string, unknown>, options: { key?: string; meta?: Record<string, unknown>; name?: string } = {}): Promise<Answer> {
  const name = options.name ?? (typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined);
  const headers = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) };
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: options.meta ?? WITH_TASKS } };
  const response = await gw.request('/mcp', { method: 'POST', key: options.key ?? 'agent', headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const park = (text = 'remember', key = 'agent') => rpc('tools/call', { name: 'save_note', arguments: { text } }, { key });
const getTask = (taskId: string, key = 'agent') => rpc('tasks/get', { taskId }, { key });
const cancelTask = (taskId: string, key = 'agent') => rpc('tasks/cancel', { taskId }, { key });
const approval = async (id: string) => (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json() as Promise<{ state: string; decided_by?: string; decided_via?: string }>;
const decide = (id: string, decision: 'approve' | 'reject') => gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision } });
const approvals = async () => ((await (await gw.request('/v1/approvals', { key: 'alice' })).json()) as { approvals: Array<{ id: string; state: string }> }).approvals;

/** Parks a call as a task; its task id and approval id. */
async function parkedTask(text = 'remember'): Promise<{ taskId: string; approvalId: string }> {
  const created = await park(text);
  expect(created.status).toBe(200);
  const taskId = created.body.result!.taskId as string;
  const pending = (await approvals()).filter((a) => a.state === 'pending');
  return { taskId, approvalId: pending.at(-1)!.id };
}

describe('a parked call becomes a task for a client that declares the extension', () => {
  it('answers the task handle; tasks/get says working, then completed with the result once approved; the call runs once', async () => {
    const created = await park();
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^tgt_[0-9a-f]{32}$/),
      status: 'working',
      statusMessage: expect.stringContaining("Waiting for a human's approval of `save_note`"),
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: expect.any(Number),
      pollIntervalMs: 5000,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolgate' } },
    });
    expect(created.body.result).not.toHaveProperty('content');
    const taskId = created.body.result!.taskId as string;
    const working = await getTask(taskId);
    expect(working.body.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.body.result).not.toHaveProperty('result');
    const [pending] = await approvals();
    expect((await decide(pending.id, 'approve')).status).toBe(200);
    const done = await getTask(taskId);
    expect(done.body.result).toMatchObject({ resultType: 'complete', taskId, status: 'completed', result: { isError: false, content: [{ type: 'text', text: 'remember' }], _meta: { 'toolgate/status': 'ok' } } });
    expect(runs).toBe(1);
    // Polling a completed task again answers the same result; nothing runs again.
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'completed', result: { isError: false } });
    expect(runs).toBe(1);
  });

  it("a task that outlives its call's stored result still completes, with the approval's excerpt of it", async () => {
    const { taskId, approvalId } = await parkedTask('kept short');
    await decide(approvalId, 'approve');
    const { call_id, thread_id } = (await (await gw.request(`/v1/approvals/${approvalId}`, { key: 'alice' })).json()) as { call_id: string; thread_id: string };
    expect(await gw.store.remove(`idem/acme/${encodeURIComponent(thread_id)}/call/${call_id}`, { state: 'completed' })).toBe(true);
    const task = (await getTask(taskId)).body.result!;
    expect(task).toMatchObject({ status: 'completed', result: { isError: false, _meta: { 'toolgate/status': 'ok' } } });
    expect(task.result!.content[0].text).toContain('kept short');
  });

  it('a rejected approval completes the task with an isError result saying so', async () => {
    const rejected = await parkedTask('no');
    await decide(rejected.approvalId, 'reject');
    const after = (await getTask(rejected.taskId)).body.result!;
    expect(after).toMatchObject({ status: 'completed', result: { isError: true, _meta: { 'toolgate/status': 'denied' } } });
    expect(after.result!.content[0].text).toContain('rejected this call of `save_note`');
    expect(runs).toBe(0);
  });

  it('an expired approval completes the task with an isError result saying so', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-08-01T00:00:00Z'));
    // A gateway built under the fake clock (its runtime reads Date.now as it was then).
    gw = await testGateway([validManifest({ tenant: 'acme', policy: { write: 'review' }, approvals: { ttl_seconds: 600 }, tools: [{ name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }] })], { agent: { tenant: 'acme', principal: 'agent' } });
    const { taskId } = (await park('late')).body.result as { taskId: string };
    vi.setSystemTime(new Date('2026-08-01T00:10:01Z'));
    const expired = (await getTask(taskId)).body.result!;
    expect(expired).toMatchObject({ status: 'completed', result: { isError: true, _meta: { 'toolgate/status': 'expired' } } });
    expect(expired.result!.content[0].text).toContain('Nobody approved this call of `save_note`');
  });

  it('gives a client without the extension today\'s answer, and the task methods refuse it with -32021', async () => {
    const plain = await rpc('tools/call', { name: 'save_note', arguments: { text: 'x' } }, { meta: ENVELOPE });
    expect(plain.body.result).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'toolgate/status': 'pending_approval' } });
    const { taskId } = await parkedTask('y');
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await rpc(method, { taskId }, { meta: ENVELOPE });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    }
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'working' });
  });

  it('lists tools without the 2025-11-25 execution.taskSupport (the revision deleted it)', async () => {
    const list = await rpc('tools/list', {});
    expect((list.body.result!.tools as Array<Record<string, unknown>>).map((tool) => 'execution' in tool)).toEqual([false, false]);
  });

  it('a read tool answers its result directly, even to a client with the extension (no task)', async () => {
    const answer = await rpc('tools/call', { name: 'echo', arguments: { text: 'now' } });
    expect(answer.body.result).toMatchObject({ resultType: 'complete', isError: false, content: [{ text: 'now' }] });
  });

  it('tasks/update is acknowledged (no toolgate task asks for input yet); malformed responses are -32602', async () => {
    const { taskId } = await parkedTask();
    expect((await rpc('tasks/update', { taskId, inputResponses: { anything: { action: 'accept' } } })).body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect((await rpc('tasks/update', { taskId, inputResponses: 5 })).body.error).toMatchObject({ code: -32602 });
  });

  it('needs Mcp-Name to be the task id', async () => {
    const { taskId } = await parkedTask();
    const mismatch = await rpc('tasks/get', { taskId }, { name: 'tgt_00000000000000000000000000000000' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({ code: -32020 });
  });
});

describe('tasks/cancel withdraws the approval', () => {
  it('the approval ends withdrawn by the requester, the task reads cancelled, the call never runs; audited and shown in Slack', async () => {
    const { taskId, approvalId } = await parkedTask();
    const cancelled = await cancelTask(taskId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.result).toMatchObject({ resultType: 'complete' });
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'cancelled', statusMessage: expect.stringContaining('withdrawn by its requester (agent)') });
    expect(await approval(approvalId)).toMatchObject({ state: 'withdrawn', decided_by: 'agent', decided_via: 'mcp' });
    // A decision arriving later finds nothing to decide.
    expect((await decide(approvalId, 'approve')).status).toBe(409);
    expect(runs).toBe(0);
    const audit = (await (await gw.request('/v1/audit?thread_id=mcp:agent', { key: 'alice' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    expect(audit.envelopes.map((e) => [e.type, e.data.state ?? e.data.status])).toEqual([
      ['tool.call.request', undefined],
      ['tool.call.decision', undefined],
      ['tool.call.result', 'pending_approval'],
      ['tool.call.approval', 'withdrawn'],
      ['tool.call.result', 'denied'],
    ]);
    expect(audit.envelopes[3].data).toMatchObject({ approval_id: approvalId, via: 'mcp' });
    const update = slack.calls.find((c) => c.method === 'chat.update');
    expect(JSON.stringify(update?.body.blocks)).toContain('Withdrawn by agent');
    expect(JSON.stringify(update?.body.blocks)).not.toContain('"action_id"');
  });

  it('cancel twice: both acknowledged, the approval withdrawn once', async () => {
    const { taskId, approvalId } = await parkedTask();
    const [a, b] = await Promise.all([cancelTask(taskId), cancelTask(taskId)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await cancelTask(taskId)).status).toBe(200);
    expect(await approval(approvalId)).toMatchObject({ state: 'withdrawn' });
    const audit = (await (await gw.request('/v1/audit?thread_id=mcp:agent', { key: 'alice' })).json()) as { envelopes: Array<{ type: string }> };
    expect(audit.envelopes.filter((e) => e.type === 'tool.call.approval')).toHaveLength(1);
  });

  it('cancel after approval: acknowledged and audited, but the call is not stopped and the task completes with its result', async () => {
    const { taskId, approvalId } = await parkedTask();
    await decide(approvalId, 'approve');
    expect((await cancelTask(taskId)).status).toBe(200);
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'completed', result: { isError: false } });
    expect(await approval(approvalId)).toMatchObject({ state: 'executed' });
    expect(runs).toBe(1);
  });

  it('cancel while the approved call runs: audited as a cancel that withdrew nothing', async () => {
    let release!: () => void;
    const runtime = (await gw.tenants.runtime('acme'))!;
    const save = runtime.registry.get('save_note')!;
    runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; await new Promise<void>((done) => (release = done)); return save.execute(args, ctx); } }, { replace: true });
    const { taskId, approvalId } = await parkedTask();
    const deciding = decide(approvalId, 'approve');
    await vi.waitFor(() => expect(runs).toBe(1));
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'working', statusMessage: expect.stringContaining('approved by alice and is running') });
    expect((await cancelTask(taskId)).status).toBe(200);
    release();
    await deciding;
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'completed', result: { isError: false } });
    const audit = (await (await gw.request('/v1/audit?thread_id=mcp:agent', { key: 'alice' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    expect(audit.envelopes.find((e) => e.type === 'tool.call.cancel')?.data).toMatchObject({ task_id: taskId, approval_id: approvalId, via: 'mcp', outcome: 'not_withdrawn' });
  });
});

describe('attacks on task ids', () => {
  it("another principal's task id is an unknown task (-32602, never 403): it can neither read nor cancel it", async () => {
    const { taskId, approvalId } = await parkedTask();
    const forged = `tgt_${'0'.repeat(32)}`;
    const answers = [await getTask(taskId, 'mallory'), await cancelTask(taskId, 'mallory'), await rpc('tasks/update', { taskId, inputResponses: {} }, { key: 'mallory' }), await getTask(forged), await getTask('not-a-task-id'), await getTask(taskId, 'other')];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('Failed to retrieve task') });
      expect(JSON.stringify(answer.body)).not.toContain('save_note');
    }
    // Mallory's cancel withdrew nothing.
    expect(await approval(approvalId)).toMatchObject({ state: 'pending' });
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'working' });
  });

  it("another principal naming this one's parked call (same thread, same explicit call id) gets no task for it, and cannot withdraw it", async () => {
    const meta = { ...WITH_TASKS, 'toolgate/thread_id': 'shared', 'toolgate/call_id': 'c-shared' };
    const mine = await rpc('tools/call', { name: 'save_note', arguments: { text: 'x' } }, { meta });
    const theirs = await rpc('tools/call', { name: 'save_note', arguments: { text: 'x' } }, { meta, key: 'mallory' });
    // The record names its principal: a conflict, telling nothing of the parked call (not even its approval).
    expect(theirs.body.result).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'toolgate/status': 'conflict' } });
    expect(theirs.body.result!._meta).not.toHaveProperty('toolgate/approval_id');
    await cancelTask(mine.body.result!.taskId as string, 'mallory');
    const [pending] = await approvals();
    expect(await approval(pending.id)).toMatchObject({ state: 'pending' });
    expect((await getTask(mine.body.result!.taskId as string)).body.result).toMatchObject({ status: 'working' });
  });

  it("a task whose call's record expired never completes with the result of another principal's call that took the key over", async () => {
    const meta = { ...WITH_TASKS, 'toolgate/thread_id': 'shared', 'toolgate/call_id': 'c-taken' };
    const mine = await rpc('tools/call', { name: 'save_note', arguments: { text: 'my note' } }, { meta });
    const taskId = mine.body.result!.taskId as string;
    await decide((await approvals())[0].id, 'approve');
    // The call's stored result expires before its task does; the key is free again.
    expect(await gw.store.remove('idem/acme/shared/call/c-taken', { state: 'completed' })).toBe(true);
    // Mallory's call under the same thread and call id (neither is secret) parks, is approved and stores her result there.
    const theirs = await rpc('tools/call', { name: 'save_note', arguments: { text: 'planted by mallory' } }, { meta, key: 'mallory' });
    expect(theirs.body.result).toMatchObject({ resultType: 'task' });
    await decide((await approvals()).find((a) => a.state === 'pending')!.id, 'approve');
    const task = (await getTask(taskId)).body.result!;
    expect(JSON.stringify(task)).not.toContain('planted by mallory');
    expect(task).toMatchObject({ status: 'completed', result: { isError: false } });
    expect(task.result!.content[0].text).toContain('my note');
  });

  it('a re-sent parked call gets the same task, and is not parked twice', async () => {
    const first = await park('twice');
    const again = await park('twice');
    expect(again.body.result).toMatchObject({ resultType: 'task', taskId: first.body.result!.taskId, status: 'working' });
    expect((await approvals()).filter((a) => a.state === 'pending')).toHaveLength(1);
    // Sent without the extension, it is the same call too: today's answer, naming the same approval.
    const plain = await rpc('tools/call', { name: 'save_note', arguments: { text: 'twice' } }, { meta: ENVELOPE });
    expect(plain.body.result).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'pending_approval', 'toolgate/approval_id': (await approvals())[0].id } });
  });

  it('once a task delivered its outcome, the identical call is a new call (a new task, a new approval)', async () => {
    const { taskId, approvalId } = await parkedTask('again');
    await decide(approvalId, 'approve');
    expect((await getTask(taskId)).body.result).toMatchObject({ status: 'completed' });
    const next = await park('again');
    expect(next.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(next.body.result!.taskId).not.toBe(taskId);
    expect((await approvals()).filter((a) => a.state === 'pending')).toHaveLength(1);
    expect(runs).toBe(1);
  });
});
