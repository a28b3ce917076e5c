import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Approvals as tasks for 2025-11-25 clients: the official SDK v1 client's task runtime
 * (`client.experimental.tasks`) sees a parked call as a task, polls it, gets its result once a
 * human approved it, and can cancel it (which withdraws the approval).
 */

let gw: Awaited<ReturnType<typeof testGateway>>;
let runs = 0;
const clients: Client[] = [];

beforeEach(async () => {
  runs = 0;
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'review', execute: 'deny' },
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'nuke', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } },
    ],
  });
  gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, mallory: { tenant: 'acme', principal: 'mallory' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read'] } });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const save = runtime.registry.get('save_note')!;
  runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; return save.execute(args, ctx); } }, { replace: true });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** The official SDK v1 client over the in-process app, having listed the tools (so it knows which may be tasks). */
async function connect(key = 'agent'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => gw.app.fetch(new Request(input, init)),
  });
  const client = new Client({ name: 'v1-tasks', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  clients.push(client);
  return client;
}

const pendingApprovals = async () => ((await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json()) as { approvals: Array<{ id: string }> }).approvals;
const approval = async (id: string) => (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json() as Promise<{ state: string; decided_via?: string }>;
const decide = (id: string, decision: 'approve' | 'reject') => gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision } });
const text = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;

describe('2025-11-25 tasks with the SDK v1 client', () => {
  it('declares tasks, and marks the tools whose calls can wait for approval as optional tasks', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    // nuke (execute, denied by the policy for every call) is not listed.
    expect(tools.map((t) => [t.name, t.execution?.taskSupport])).toEqual([['echo', undefined], ['save_note', 'optional']]);
  });

  it('bars: a parked call seen as a task completes after approval, with the result, and runs once', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'approved later' } }, CallToolResultSchema);
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { taskId: expect.stringMatching(/^tgt_/), status: 'working', pollInterval: 5000 } });
    const [pending] = await pendingApprovals();
    expect((await decide(pending.id, 'approve')).status).toBe(200);
    const seen = [];
    for await (const message of stream) seen.push(message);
    expect(seen.map((m) => m.type)).toEqual(['taskStatus', 'result']);
    expect(seen[0]).toMatchObject({ task: { status: 'completed' } });
    const result = (seen[1] as { result: { content: unknown; isError: boolean; _meta: Record<string, unknown> } }).result;
    expect([text(result), result.isError]).toEqual(['approved later', false]);
    expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: (first.value as { task: { taskId: string } }).task.taskId });
    expect(runs).toBe(1);
  });

  it('bars: and is cancellable: the approval is withdrawn, the stream ends cancelled, the call never runs', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'never' } }, CallToolResultSchema);
    const created = (await stream.next()).value as { task: { taskId: string } };
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled', statusMessage: expect.stringContaining('withdrawn by its requester') });
    const rest = [];
    for await (const message of stream) rest.push(message);
    expect(rest.at(-1)).toMatchObject({ type: 'error', error: { message: expect.stringContaining('was cancelled') } });
    const [withdrawn] = ((await (await gw.request('/v1/approvals?state=withdrawn', { key: 'alice' })).json()) as { approvals: Array<{ id: string }> }).approvals;
    expect(await approval(withdrawn.id)).toMatchObject({ state: 'withdrawn', decided_via: 'mcp' });
    expect((await decide(withdrawn.id, 'approve')).status).toBe(409);
    expect(runs).toBe(0);
  });

  it('a rejected call: the task completes with an isError result the model can read', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'no' } }, CallToolResultSchema);
    await stream.next();
    await decide((await pendingApprovals())[0].id, 'reject');
    const seen = [];
    for await (const message of stream) seen.push(message);
    const result = (seen.at(-1) as { type: string; result: { content: unknown; isError: boolean } });
    expect(result.type).toBe('result');
    expect(result.result.isError).toBe(true);
    expect(text(result.result)).toContain('rejected this call of `save_note`');
  });

  it('tasks/result waits for a task still working, and answers once it is approved', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'waited for' } }, CallToolResultSchema);
    const { task } = (await stream.next()).value as { task: { taskId: string } };
    const waiting = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await new Promise((done) => setTimeout(done, 700));
    await decide((await pendingApprovals())[0].id, 'approve');
    expect(text(await waiting)).toBe('waited for');
    await stream.return(undefined);
  });

  it('one tasks/result per POST waits: the others of a batch answer at once (a batch cannot multiply the store reads)', async () => {
    const client = await connect();
    const ids: string[] = [];
    for (const text of ['a', 'b', 'c']) ids.push(((await client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text } }, CallToolResultSchema).next()).value as { task: { taskId: string } }).task.taskId);
    const batch = gw.request('/mcp', { method: 'POST', key: 'agent', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify(ids.map((taskId, i) => ({ jsonrpc: '2.0', id: i, method: 'tasks/result', params: { taskId } }))) });
    await new Promise((done) => setTimeout(done, 700));
    // The first task's call is approved (oldest approval first); the other two stay pending.
    await decide((await pendingApprovals())[0].id, 'approve');
    const answers = (await (await batch).json()) as Array<{ result?: unknown; error?: { code: number; message: string } }>;
    expect(answers[0].result).toMatchObject({ content: [{ text: 'a' }] });
    expect(answers.slice(1).map((a) => [a.error?.code, a.error?.message.includes('is still working')])).toEqual([[-32603, true], [-32603, true]]);
  });

  it('a task asked for a call that needs no approval completes at once, with its result kept in the task', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream({ name: 'echo', arguments: { text: 'at once' } }, CallToolResultSchema, { task: {} });
    const seen = [];
    for await (const message of stream) seen.push(message);
    expect(seen.map((m) => m.type)).toEqual(['taskCreated', 'taskStatus', 'result']);
    expect(text((seen[2] as { result: { content: unknown } }).result)).toBe('at once');
  });

  it('tasks/list shows the caller its own tasks only', async () => {
    const agent = await connect();
    const mallory = await connect('mallory');
    const mine = (await agent.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'a' } }, CallToolResultSchema).next()).value as { task: { taskId: string } };
    const theirs = (await mallory.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'm' } }, CallToolResultSchema).next()).value as { task: { taskId: string } };
    expect((await agent.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([mine.task.taskId]);
    expect((await mallory.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([theirs.task.taskId]);
  });
});

describe('attacks on 2025-11-25 tasks', () => {
  it("another principal's task id is unknown to get, result and cancel (-32602), and its approval stays pending", async () => {
    const agent = await connect();
    const mallory = await connect('mallory');
    const { task } = (await agent.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'mine' } }, CallToolResultSchema).next()).value as { task: { taskId: string } };
    for (const attempt of [() => mallory.experimental.tasks.getTask(task.taskId), () => mallory.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema), () => mallory.experimental.tasks.cancelTask(task.taskId), () => agent.experimental.tasks.getTask(`tgt_${'f'.repeat(32)}`)]) {
      await expect(attempt()).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Failed to retrieve task') });
    }
    expect((await agent.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    expect(await pendingApprovals()).toHaveLength(1);
  });

  it('cancel twice: the second is refused (-32602, the task already ended); so is a cancel after the call completed', async () => {
    const client = await connect();
    const first = ((await client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'one' } }, CallToolResultSchema).next()).value as { task: { taskId: string } }).task;
    await client.experimental.tasks.cancelTask(first.taskId);
    await expect(client.experimental.tasks.cancelTask(first.taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('already ended (cancelled)') });

    const second = ((await client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'two' } }, CallToolResultSchema).next()).value as { task: { taskId: string } }).task;
    await decide((await pendingApprovals())[0].id, 'approve');
    await expect(client.experimental.tasks.cancelTask(second.taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('already ended (completed)') });
    expect(runs).toBe(1);
  });

  it('cancel while the approved call runs: the task reads cancelled from then on, the call runs to its end and is recorded', async () => {
    let release!: () => void;
    const runtime = (await gw.tenants.runtime('acme'))!;
    const save = runtime.registry.get('save_note')!;
    runtime.registry.register({ ...save, execute: async (args, ctx) => { runs++; await new Promise<void>((done) => (release = done)); return save.execute(args, ctx); } }, { replace: true });
    const client = await connect();
    const { task } = (await client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'running' } }, CallToolResultSchema).next()).value as { task: { taskId: string } };
    const deciding = decide((await pendingApprovals())[0].id, 'approve');
    await vi.waitFor(() => expect(runs).toBe(1));
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: 'cancelled', statusMessage: expect.stringContaining('runs to its end') });
    release();
    await deciding;
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect([result.isError, text(result)]).toEqual([true, expect.stringContaining('this task does not return it')]);
    const audit = (await (await gw.request('/v1/audit?thread_id=mcp:agent', { key: 'alice' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    expect(audit.envelopes.map((e) => e.type)).toContain('tool.call.cancel');
    expect(audit.envelopes.filter((e) => e.type === 'tool.call.result').map((e) => e.data.status)).toEqual(['pending_approval', 'ok']);
  });

  it('re-sending a parked call as a task gets the same task and the same approval', async () => {
    const client = await connect();
    const call = () => client.experimental.tasks.callToolStream({ name: 'save_note', arguments: { text: 'same' } }, CallToolResultSchema).next();
    const a = ((await call()).value as { task: { taskId: string } }).task;
    const b = ((await call()).value as { task: { taskId: string } }).task;
    expect(b.taskId).toBe(a.taskId);
    expect(await pendingApprovals()).toHaveLength(1);
    // And as a plain call (no task), the same call: today's answer naming the same approval.
    const plain = await client.callTool({ name: 'save_note', arguments: { text: 'same' } });
    expect(plain._meta).toMatchObject({ 'toolgate/status': 'pending_approval', 'toolgate/approval_id': (await pendingApprovals())[0].id });
  });
});
