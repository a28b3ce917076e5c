import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../lib/governance/approval.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { serveGateway, signInConsole, URL_ELICITATION, WITH_TASKS, type RpcAnswer, type ServedGateway } from '../helpers/confirm-client.ts';

/**
 * The policy's `confirm` (issue 23, item 3): a call parked for its own user's confirmation, as a
 * single-user agent (a developer's IDE) needs. The user confirms or declines on the console's
 * confirm page, signed in as the requester; a 2026-07-28 client that declares URL elicitation is
 * asked through an `input_required` answer linking that page, and its retry (with the
 * `requestState`) resumes the call. Everything over real HTTP on 127.0.0.1.
 */

const text = { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } }, required: ['text'] };
let gw: Awaited<ReturnType<typeof testGateway>>;
let served: ServedGateway;
let runs = 0;

beforeEach(async () => {
  runs = 0;
  const manifest = validManifest({
    tenant: 'acme',
    policy: { read: 'grant', write: 'confirm', execute: 'review' },
    approvals: { ttl_seconds: 600 },
    tools: [
      { name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
      { name: 'deploy', tier: 'execute', executor: { kind: 'builtin', name: 'echo' }, input_schema: text },
    ],
  });
  gw = await testGateway([manifest, validManifest({ tenant: 'globex' })], {
    agent: { tenant: 'acme', principal: 'agent' },
    mallory: { tenant: 'acme', principal: 'mallory', scopes: ['approvals:decide'] },
    deciding_agent: { tenant: 'acme', principal: 'deciding-agent', scopes: ['approvals:decide'] },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'approvals:read', 'audit:read', 'admin'] },
    stranger: { tenant: 'globex', principal: 'agent', scopes: ['approvals:decide'] },
  });
  const runtime = (await gw.tenants.runtime('acme'))!;
  for (const name of ['save_note', 'deploy']) {
    const tool = runtime.registry.get(name)!;
    runtime.registry.register({ ...tool, execute: async (args, ctx) => { runs++; return tool.execute(args, ctx); } }, { replace: true });
  }
  served = await serveGateway(gw);
});
afterEach(async () => {
  await served.close();
});

const approvalOf = async (id: string) => (await (await served.api(`/v1/approvals/${id}`, { key: 'alice' })).json()) as Approval & { decisions: Array<{ by: string; via: string; decision: string }> };
const dispatch = async (call_id: string, args: Record<string, unknown> = { text: 'hello', token: 's3cret' }, key = 'agent', name = 'save_note') =>
  (await (await served.api('/v1/dispatch', { key, json: { thread_id: 'th', calls: [{ call_id, name, arguments: args }] } })).json()) as { results: Array<{ status: string; content: string; is_error: boolean; error?: { details: { approval_id: string } } }> };
const call = (args: Record<string, unknown>, capabilities: Record<string, unknown> = URL_ELICITATION, extra: Record<string, unknown> = {}, key = 'agent') => served.rpc('tools/call', { name: 'save_note', arguments: args, ...extra }, { key, capabilities });
const retry = (args: Record<string, unknown>, requestState: unknown, action: string | undefined, capabilities: Record<string, unknown> = URL_ELICITATION, key = 'agent') =>
  call(args, capabilities, { requestState, ...(action ? { inputResponses: { 'toolgate.confirm': { action } } } : {}) }, key);
const resultOf = (answer: RpcAnswer) => answer.body.result!;
const textOf = (answer: RpcAnswer) => resultOf(answer).content?.[0]?.text ?? '';

/** The approval id an input_required answer links to. */
function linkedApproval(answer: RpcAnswer): string {
  const request = (resultOf(answer).inputRequests as Record<string, { params: { url: string } }>)['toolgate.confirm'];
  return /\/console\/confirm\/(apr_[0-9a-f]{24})$/.exec(request.params.url)![1];
}

describe('the console confirm page', () => {
  it('the requester confirms its own parked call (form token required); it runs once, recorded as its self-confirmation and audited', async () => {
    const parked = (await dispatch('c1')).results[0];
    expect(parked.status).toBe('pending_approval');
    expect(parked.content).toContain('waits for the user this agent acts for to confirm it');
    expect(parked.content).toContain('Confirmations page');
    expect(parked.content).not.toMatch(/https?:\/\//);
    const id = parked.error!.details.approval_id;
    const session = await signInConsole(served.url, 'agent');
    const list = await (await session.get('/console/confirm')).text();
    expect(list).toContain(`/console/confirm/${id}`);
    const page = await (await session.get(`/console/confirm/${id}`)).text();
    expect(page).toContain('<code>save_note</code>');
    expect(page).toContain('data-role="target"');
    expect(page).toContain('&quot;text&quot;: &quot;hello&quot;');
    expect(page).not.toContain('s3cret');
    expect(page).toContain('value="confirm"');
    // No form token, or another session's: refused, nothing decided.
    expect((await session.post(`/console/confirm/${id}`, { decision: 'confirm' }, { csrf: null })).status).toBe(403);
    expect((await session.post(`/console/confirm/${id}`, { decision: 'confirm' }, { csrf: 'f'.repeat(64) })).status).toBe(403);
    expect((await approvalOf(id)).state).toBe('pending');
    const confirmed = await session.post(`/console/confirm/${id}`, { decision: 'confirm' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`/console/confirm/${id}`);
    expect(runs).toBe(1);
    const approval = await approvalOf(id);
    expect(approval).toMatchObject({ state: 'executed', kind: 'confirm', decided_by: 'agent', decided_via: 'confirm' });
    expect(approval.decisions).toEqual([expect.objectContaining({ decision: 'approve', by: 'agent', via: 'confirm' })]);
    // The re-sent call gets the result; a second confirm finds nothing to decide.
    expect((await dispatch('c1')).results[0]).toMatchObject({ status: 'ok', content: expect.stringContaining('hello') });
    expect((await session.post(`/console/confirm/${id}`, { decision: 'confirm' })).status).toBe(409);
    expect(runs).toBe(1);
    const audit = (await (await served.api('/v1/audit?thread_id=th', { key: 'alice' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown>; principal: string }> };
    expect(audit.envelopes.find((e) => e.type === 'tool.call.approval')).toMatchObject({ principal: 'agent', data: { approval_id: id, state: 'approved', via: 'confirm', decision: 'approve' } });
  });

  it('the requester declines it: it never runs, and the model is told the user declined', async () => {
    const id = (await dispatch('c2')).results[0].error!.details.approval_id;
    const session = await signInConsole(served.url, 'agent');
    expect((await session.post(`/console/confirm/${id}`, { decision: 'decline' })).status).toBe(303);
    expect(await approvalOf(id)).toMatchObject({ state: 'rejected', decided_by: 'agent', decided_via: 'confirm' });
    const after = (await dispatch('c2')).results[0];
    expect(after).toMatchObject({ status: 'denied', is_error: true });
    expect(after.content).toContain('The user (agent) declined this call of `save_note` when asked to confirm it');
    expect(runs).toBe(0);
  });

  it('a link opened before signing in comes back to the page after sign-in; only confirm pages may be returned to', async () => {
    const id = (await dispatch('c3')).results[0].error!.details.approval_id;
    const opened = await fetch(`${served.url}/console/confirm/${id}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/console/sign-in?next=${encodeURIComponent(`/console/confirm/${id}`)}`);
    expect(await (await fetch(`${served.url}${opened.headers.get('location')}`)).text()).toContain(`name="next" value="/console/confirm/${id}"`);
    expect((await signInConsole(served.url, 'agent', `/console/confirm/${id}`)).location).toBe(`/console/confirm/${id}`);
    for (const next of ['https://evil.example/', '//evil.example', '/console/keys', `/console/confirm/${id}/../../keys`]) {
      expect((await signInConsole(served.url, 'agent', next)).location, next).toBe('/console');
    }
  });

  it('another principal, another tenant, and the agent on its own review approval see 404 (never 403), and can decide nothing there', async () => {
    const id = (await dispatch('c4')).results[0].error!.details.approval_id;
    for (const key of ['mallory', 'alice', 'stranger']) {
      const session = await signInConsole(served.url, key);
      expect((await session.get(`/console/confirm/${id}`)).status, key).toBe(404);
      expect((await session.post(`/console/confirm/${id}`, { decision: 'confirm' })).status, key).toBe(404);
      expect(await (await session.get('/console/confirm')).text(), key).not.toContain(id);
    }
    const review = (await dispatch('c5', { text: 'ship' }, 'agent', 'deploy')).results[0].error!.details.approval_id;
    const agent = await signInConsole(served.url, 'agent');
    expect((await agent.get(`/console/confirm/${review}`)).status).toBe(404);
    expect((await agent.post(`/console/confirm/${review}`, { decision: 'confirm' })).status).toBe(404);
    expect((await agent.get(`/console/confirm/apr_${'0'.repeat(24)}`)).status).toBe(404);
    expect((await approvalOf(id)).state).toBe('pending');
    expect((await approvalOf(review)).state).toBe('pending');
    expect(runs).toBe(0);
  });
});

describe('who may decide a confirm approval, and a review', () => {
  it('the developer whose key minted the agent\'s key confirms its calls on the console, as the same person', async () => {
    const minted = await served.api('/v1/admin/keys', { key: 'alice', json: { principal: 'alice-ide', scopes: [] } });
    expect(minted.status).toBe(201);
    const ideKey = ((await minted.json()) as { key: string }).key;
    const id = (await dispatch('m1', { text: 'from the ide' }, ideKey)).results[0].error!.details.approval_id;
    const developer = await signInConsole(served.url, 'alice');
    expect(await (await developer.get('/console/confirm')).text()).toContain(id);
    expect((await developer.post(`/console/confirm/${id}`, { decision: 'confirm' })).status).toBe(303);
    expect(await approvalOf(id)).toMatchObject({ state: 'executed', requested_by: 'alice-ide', decided_by: 'alice', decided_via: 'confirm' });
    // Someone who did not mint it is another person.
    const other = (await dispatch('m2', { text: 'again' }, ideKey)).results[0].error!.details.approval_id;
    expect((await (await signInConsole(served.url, 'mallory')).get(`/console/confirm/${other}`)).status).toBe(404);
    expect(runs).toBe(1);
  });

  it('over the API the requester confirms its own call without approvals:decide; nobody else can approve it, an approver may reject it', async () => {
    const id = (await dispatch('a1')).results[0].error!.details.approval_id;
    const byMallory = await served.api(`/v1/approvals/${id}`, { key: 'mallory', json: { decision: 'approve' } });
    expect(byMallory.status).toBe(403);
    expect(((await byMallory.json()) as { error: { message: string } }).error.message).toContain('only the principal that made it');
    const approved = await served.api(`/v1/approvals/${id}`, { key: 'agent', json: { decision: 'approve' } });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ approval: { state: 'executed', decided_by: 'agent', decided_via: 'confirm' }, result: { status: 'ok' } });
    expect(runs).toBe(1);
    const other = (await dispatch('a2')).results[0].error!.details.approval_id;
    const rejected = await served.api(`/v1/approvals/${other}`, { key: 'mallory', json: { decision: 'reject', reason: 'not now' } });
    expect(await rejected.json()).toMatchObject({ approval: { state: 'rejected', decided_by: 'mallory', decided_via: 'api' } });
    expect((await dispatch('a2')).results[0].content).toContain('A human (mallory) rejected this call');
    expect(runs).toBe(1);
  });

  it('the requester still cannot approve its own review, with or without approvals:decide (API and console)', async () => {
    const id = (await dispatch('r1', { text: 'ship' }, 'agent', 'deploy')).results[0].error!.details.approval_id;
    const noScope = await served.api(`/v1/approvals/${id}`, { key: 'agent', json: { decision: 'approve' } });
    expect(noScope.status).toBe(403);
    expect(((await noScope.json()) as { error: { message: string } }).error.message).toContain('lacks the scope "approvals:decide"');
    const own = (await dispatch('r2', { text: 'ship' }, 'deciding_agent', 'deploy')).results[0].error!.details.approval_id;
    const withScope = await served.api(`/v1/approvals/${own}`, { key: 'deciding_agent', json: { decision: 'approve' } });
    expect(withScope.status).toBe(403);
    expect(((await withScope.json()) as { error: { message: string } }).error.message).toContain('cannot approve it');
    const session = await signInConsole(served.url, 'deciding_agent');
    expect((await session.post(`/console/approvals/${own}`, { decision: 'approve' })).status).toBe(403);
    expect((await session.post(`/console/confirm/${own}`, { decision: 'confirm' })).status).toBe(404);
    expect((await approvalOf(id)).state).toBe('pending');
    expect((await approvalOf(own)).state).toBe('pending');
    expect(runs).toBe(0);
  });

  it('a key without approvals:decide decides nothing but its own confirmations', async () => {
    const theirs = (await dispatch('o1', { text: 'x' }, 'deciding_agent')).results[0].error!.details.approval_id;
    const refused = await served.api(`/v1/approvals/${theirs}`, { key: 'agent', json: { decision: 'reject' } });
    expect(refused.status).toBe(403);
    expect((await approvalOf(theirs)).state).toBe('pending');
  });
});

describe('a 2026-07-28 client with URL elicitation (Multi Round-Trip Requests)', () => {
  it('input_required links the confirm page; confirmed there, the retry answers the result, and the call ran once', async () => {
    const first = await call({ text: 'note', token: 'tok-SECRET' });
    expect(first.status).toBe(200);
    const asked = resultOf(first);
    expect(asked).toMatchObject({ resultType: 'input_required', requestState: expect.stringMatching(/^tgs_[0-9a-f]{32}$/), _meta: { 'toolgate/status': 'pending_approval' } });
    expect(asked).not.toHaveProperty('content');
    const request = (asked.inputRequests as Record<string, { method: string; params: { mode: string; message: string; url: string } }>)['toolgate.confirm'];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url', url: expect.stringMatching(new RegExp(`^${served.url}/console/confirm/apr_[0-9a-f]{24}$`)) } });
    expect(request.params.message).toContain('Confirm `save_note`');
    expect(request.params.message).not.toContain('tok-SECRET');
    const id = linkedApproval(first);
    // The user opens the link, signs in with the agent's key, confirms.
    const session = await signInConsole(served.url, 'agent', `/console/confirm/${id}`);
    expect(session.location).toBe(`/console/confirm/${id}`);
    expect((await session.post(`/console/confirm/${id}`, { decision: 'confirm' })).status).toBe(303);
    expect(runs).toBe(1);
    const done = await retry({ text: 'note', token: 'tok-SECRET' }, asked.requestState, 'accept');
    expect(resultOf(done)).toMatchObject({ resultType: 'complete', isError: false, _meta: { 'toolgate/status': 'ok' } });
    expect(textOf(done)).toContain('note');
    expect(runs).toBe(1);
    // The handle was good for one retry; the outcome was delivered, so the same call sent afresh is a new call (asked again).
    const again = await retry({ text: 'note', token: 'tok-SECRET' }, asked.requestState, 'accept');
    expect(again.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('already used'), data: { request_state: 'used' } });
    const fresh = await call({ text: 'note', token: 'tok-SECRET' });
    expect(resultOf(fresh).resultType).toBe('input_required');
    expect(linkedApproval(fresh)).not.toBe(id);
    expect(runs).toBe(1);
  });

  it('declined (or dismissed) in the client: the call is withdrawn, audited, and answered as declined by the user', async () => {
    for (const action of ['decline', 'cancel']) {
      const first = await call({ text: action });
      const id = linkedApproval(first);
      const declined = await retry({ text: action }, resultOf(first).requestState, action);
      expect(resultOf(declined)).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'toolgate/status': 'denied' } });
      expect(textOf(declined)).toContain('declined by the user (agent)');
      expect(await approvalOf(id)).toMatchObject({ state: 'withdrawn', decided_by: 'agent', decided_via: 'mcp' });
    }
    expect(runs).toBe(0);
    const audit = (await (await served.api('/v1/audit?thread_id=mcp%3Aagent', { key: 'alice' })).json()) as { envelopes: Array<{ type: string; data: Record<string, unknown> }> };
    expect(audit.envelopes.filter((e) => e.type === 'tool.call.approval' && e.data.state === 'withdrawn')).toHaveLength(2);
  });

  it('still waiting: asked once more, then the waiting text (naming the console page, no link)', async () => {
    const first = await call({ text: 'slow' });
    const second = await retry({ text: 'slow' }, resultOf(first).requestState, 'accept');
    expect(resultOf(second).resultType).toBe('input_required');
    expect(resultOf(second).requestState).not.toBe(resultOf(first).requestState);
    expect(linkedApproval(second)).toBe(linkedApproval(first));
    const third = await retry({ text: 'slow' }, resultOf(second).requestState, 'accept');
    expect(resultOf(third)).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'toolgate/status': 'pending_approval', 'toolgate/approval_id': linkedApproval(first) } });
    expect(textOf(third)).toContain('Confirmations page');
    expect(textOf(third)).not.toMatch(/https?:\/\//);
    // Sent again afresh (the client gave up on the handle), the same parked call is found and asked about again.
    const resent = await call({ text: 'slow' });
    expect(linkedApproval(resent)).toBe(linkedApproval(first));
    const pending = (await (await served.api('/v1/approvals?state=pending', { key: 'alice' })).json()) as { approvals: unknown[] };
    expect(pending.approvals).toHaveLength(1);
  });

  it('a tampered, unknown, foreign, mismatched, expired or reused requestState resumes nothing', async () => {
    const first = await call({ text: 'guarded' });
    const state = resultOf(first).requestState as string;
    const id = linkedApproval(first);
    // Each refusal is a JSON-RPC -32602 error (as a tampered relay state's), saying to send the call afresh.
    const refusal = async (answer: Promise<RpcAnswer>, reason: string, words: string) => {
      const { body } = await answer;
      expect(body.result, words).toBeUndefined();
      expect(body.error, words).toMatchObject({ code: -32602, message: expect.stringContaining(words), data: { request_state: reason } });
      expect(body.error?.message, words).toContain('Send the call again without requestState and inputResponses');
    };
    await refusal(retry({ text: 'guarded' }, `${state.slice(0, -1)}${state.endsWith('0') ? '1' : '0'}`, 'accept'), 'unknown', 'requestState is not one toolgate gave this client');
    await refusal(retry({ text: 'guarded' }, 'tgs_../../approval/x', 'decline'), 'unknown', 'not one toolgate gave this client');
    await refusal(retry({ text: 'guarded' }, 'not-a-handle', 'decline'), 'unknown', 'not one toolgate gave this client');
    // Another principal of the tenant (mallory) presenting the agent's handle: unknown, and it stays usable by the agent.
    await refusal(retry({ text: 'guarded' }, state, 'decline', URL_ELICITATION, 'mallory'), 'unknown', 'not one toolgate gave this client');
    // The same handle for other arguments: another call.
    await refusal(retry({ text: 'guarded but different' }, state, 'decline'), 'other_call', 'belongs to another call');
    expect((await approvalOf(id)).state).toBe('pending');
    // A wrong type is a params error.
    const wrongType = await retry({ text: 'guarded' }, 42, 'accept');
    expect(wrongType.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.requestState must be a string') });
    // The real one works once (still pending: asked again), then is used up.
    expect(resultOf(await retry({ text: 'guarded' }, state, 'accept')).resultType).toBe('input_required');
    await refusal(retry({ text: 'guarded' }, state, 'decline'), 'used', 'already used');
    expect((await approvalOf(id)).state).toBe('pending');
    // Expired: its record says its time is up (as ten minutes later).
    const late = resultOf(await call({ text: 'late' })).requestState as string;
    const key = `mcp-state/acme/${late}`;
    const record = (await gw.store.get(key))!;
    await gw.store.put(key, { ...record, data: { ...record.data, expires_at: Date.now() - 1 } });
    await refusal(retry({ text: 'late' }, late, 'decline'), 'expired', 'requestState expired');
    expect(runs).toBe(0);
  });

  it('without URL elicitation the call answers the waiting text; a legacy client the same', async () => {
    const plain = await call({ text: 'plain' }, {});
    expect(resultOf(plain)).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'toolgate/status': 'pending_approval' } });
    expect(textOf(plain)).toContain('Confirmations page');
    expect(textOf(plain)).not.toMatch(/https?:\/\//);
    const legacy = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer agent', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'save_note', arguments: { text: 'legacy' } } }) });
    const body = (await legacy.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toContain('Confirmations page');
    // A 2025-11-25 task: working, its message naming the console page (that vocabulary is never asked input in-band).
    const tasked = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer agent', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'save_note', arguments: { text: 'legacy task' }, task: {} } }) });
    const task = ((await tasked.json()) as { result: { task: { status: string; statusMessage: string } } }).result.task;
    expect(task).toMatchObject({ status: 'working', statusMessage: expect.stringContaining('Waiting for the user to confirm `save_note`') });
    expect(runs).toBe(0);
  });
});

describe('a 2026-07-28 client with tasks', () => {
  it('with URL elicitation: asked first; still waiting, a task input_required with the same request; confirmed, the task completes with the result', async () => {
    const both = { ...URL_ELICITATION, ...WITH_TASKS };
    const first = await call({ text: 'tasked' }, both);
    expect(resultOf(first).resultType).toBe('input_required');
    const id = linkedApproval(first);
    const handle = resultOf(await retry({ text: 'tasked' }, resultOf(first).requestState, 'accept', both));
    expect(handle).toMatchObject({ resultType: 'task', status: 'input_required', taskId: expect.stringMatching(/^tgt_/) });
    const taskId = handle.taskId as string;
    const waiting = resultOf(await served.rpc('tasks/get', { taskId }, { capabilities: both }));
    expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { 'toolgate.confirm': { method: 'elicitation/create', params: { mode: 'url', url: `${served.url}/console/confirm/${id}` } } } });
    // Asked without URL elicitation on this request: working, the console named, no link.
    const plain = resultOf(await served.rpc('tasks/get', { taskId }, { capabilities: WITH_TASKS }));
    expect(plain).toMatchObject({ status: 'working', statusMessage: expect.stringContaining('Confirmations page') });
    expect(plain).not.toHaveProperty('inputRequests');
    expect(String(plain.statusMessage)).not.toMatch(/https?:\/\//);
    const session = await signInConsole(served.url, 'agent');
    await session.post(`/console/confirm/${id}`, { decision: 'confirm' });
    const done = resultOf(await served.rpc('tasks/get', { taskId }, { capabilities: both }));
    expect(done).toMatchObject({ status: 'completed', result: { isError: false, content: [{ text: expect.stringContaining('tasked') }] } });
    expect(runs).toBe(1);
  });

  it('without URL elicitation: a working task naming the console; tasks/update declining it withdraws the call', async () => {
    const created = resultOf(await call({ text: 'quiet' }, WITH_TASKS));
    expect(created).toMatchObject({ resultType: 'task', status: 'working', statusMessage: expect.stringContaining('Waiting for the user to confirm `save_note`') });
    expect(String(created.statusMessage)).not.toMatch(/https?:\/\//);
    const taskId = created.taskId as string;
    expect(resultOf(await served.rpc('tasks/update', { taskId, inputResponses: { 'toolgate.confirm': { action: 'decline' } } }, { capabilities: WITH_TASKS }))).toMatchObject({ resultType: 'complete' });
    const ended = resultOf(await served.rpc('tasks/get', { taskId }, { capabilities: WITH_TASKS }));
    expect(ended).toMatchObject({ status: 'completed', result: { isError: true, _meta: { 'toolgate/status': 'denied' } } });
    expect((ended.result as { content: Array<{ text: string }> }).content[0].text).toContain('declined by the user');
    expect(runs).toBe(0);
  });
});
