/**
 * Strict request shapes: a field toolgate's own request objects do not have is a 400 that names
 * it and the field meant, on every route with a body of toolgate's own; and a refused body
 * stores nothing and runs nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClaimOutcome, CommitOutcome, CommitRequest, StateRecord, TransitionExpectation, TransitionOutcome } from '../../lib/stores/store.ts';
import { unknownDispatchFields } from '../../lib/http/dispatch-fields.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, validManifest } from '../helpers/manifests.ts';

/** A memory store that counts every write, so a test can tell that a refused request stored nothing. */
class CountingStore extends MemoryStore {
  writes = 0;
  override async claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    this.writes++;
    return super.claim(key, record);
  }
  override async transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    this.writes++;
    return super.transition(key, expect, next);
  }
  override async put(key: string, record: StateRecord): Promise<void> {
    // When a key was last used is noted whatever the request (once a minute): not the request's doing.
    if (!key.startsWith('apikey-id/')) this.writes++;
    return super.put(key, record);
  }
  override async remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    this.writes++;
    return super.remove(key, expect);
  }
  override async commit(request: CommitRequest): Promise<CommitOutcome> {
    this.writes++;
    return super.commit(request);
  }
  override async addToIndex(index: string, member: string, score: number): Promise<void> {
    this.writes++;
    return super.addToIndex(index, member, score);
  }
}

let gw: Awaited<ReturnType<typeof testGateway>>;
let store: CountingStore;
let runs: number;

beforeEach(async () => {
  runs = 0;
  store = new CountingStore();
  const tools = [
    { name: 'echo', executor: { kind: 'builtin' } },
    { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' } },
    { name: 'guarded', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } },
  ];
  const manifest = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'grant', execute: 'review' }, tools });
  gw = await testGateway([manifest], {
    agent: { tenant: 'acme', principal: 'agent' },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] },
    admin: { tenant: 'acme', principal: 'root', scopes: ['admin'] },
  }, { store });
  const runtime = (await gw.tenants.runtime('acme'))!;
  for (const name of ['publish', 'guarded']) {
    const tool = runtime.registry.get(name)!;
    runtime.registry.register({ ...tool, execute: async (args, ctx) => { runs++; return tool.execute(args, ctx); } }, { replace: true });
  }
});

const post = (path: string, key: string, json: unknown) => gw.request(path, { key, json });

/** The request answers 400 invalid_request with exactly `message`, and changed nothing in the store. */
async function expectRefused(request: Response | Promise<Response>, message: string) {
  const writes = store.writes;
  const response = await request;
  expect(await response.json()).toEqual({ error: { code: 'invalid_request', message } });
  expect(response.status).toBe(400);
  expect(store.writes).toBe(writes);
}

describe('POST /v1/dispatch, toolgate shape', () => {
  it('a call sent with id instead of call_id is refused, not given a fresh id: nothing is stored or run', async () => {
    const body = { thread_id: 'th', calls: [{ id: 'pub-1', name: 'publish', arguments: { text: 'x' } }] };
    await expectRefused(post('/v1/dispatch', 'agent', body), 'calls[0].id: unknown field; the call id field is call_id');
    await expectRefused(post('/v1/dispatch', 'agent', body), 'calls[0].id: unknown field; the call id field is call_id');
    expect(runs).toBe(0);
    expect((await gw.request('/v1/calls/pub-1?thread_id=th', { key: 'agent' })).status).toBe(404);
    // Fixed as the message says, the call runs once and its retry replays.
    const fixed = { thread_id: 'th', calls: [{ call_id: 'pub-1', name: 'publish', arguments: { text: 'x' } }] };
    expect((await (await post('/v1/dispatch', 'agent', fixed)).json()).results[0]).toMatchObject({ call_id: 'pub-1', status: 'ok' });
    expect((await (await post('/v1/dispatch', 'agent', fixed)).json()).results[0]).toMatchObject({ call_id: 'pub-1', replayed: true });
    expect(runs).toBe(1);
  });

  it('names the field meant for the usual misnamings of a call', async () => {
    const call = (fields: Record<string, unknown>) => post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [fields] });
    await expectRefused(call({ call_id: 'a', tool: 'echo', arguments: {} }), 'calls[0].tool: unknown field; the tool name field is name');
    await expectRefused(call({ call_id: 'a', tool_name: 'echo', arguments: {} }), 'calls[0].tool_name: unknown field; the tool name field is name');
    await expectRefused(call({ call_id: 'a', function: 'echo', arguments: {} }), 'calls[0].function: unknown field; the tool name field is name');
    await expectRefused(call({ call_id: 'a', name: 'echo', args: {} }), 'calls[0].args: unknown field; the tool arguments field is arguments');
    await expectRefused(call({ call_id: 'a', name: 'echo', input: {} }), 'calls[0].input: unknown field; the tool arguments field is arguments');
    await expectRefused(call({ call_id: 'a', name: 'echo', parameters: {} }), 'calls[0].parameters: unknown field; the tool arguments field is arguments');
    await expectRefused(call({ callId: 'a', name: 'echo', arguments: {} }), 'calls[0].callId: unknown field; the call id field is call_id');
    await expectRefused(call({ call_id: 'a', name: 'echo', arguemnts: {} }), 'calls[0].arguemnts: unknown field; did you mean arguments?');
    await expectRefused(call({ call_id: 'a', name: 'echo', arguments: {}, priority: 1 }), 'calls[0].priority: unknown field; the fields are call_id, name, arguments');
    expect(runs).toBe(0);
  });

  it('names misnamed envelope fields, and a provider field sent without its format', async () => {
    const calls = [{ call_id: 'a', name: 'publish', arguments: { text: 'x' } }];
    await expectRefused(post('/v1/dispatch', 'agent', { thread: 'th', calls }), 'thread: unknown field; the thread id field is thread_id');
    await expectRefused(post('/v1/dispatch', 'agent', { threadId: 'th', calls }), 'threadId: unknown field; the thread id field is thread_id');
    await expectRefused(post('/v1/dispatch', 'agent', { conversation_id: 'th', calls }), 'conversation_id: unknown field; the thread id field is thread_id');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', calls, parallel_tool_calls: true }), 'parallel_tool_calls: unknown field; the field that runs the calls concurrently is parallel');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', calls, paralel: true }), 'paralel: unknown field; did you mean parallel?');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', tool_calls: [] }), 'tool_calls: unknown field; tool_calls is read only in a provider\'s shape: add "format": "openai"');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', content: [] }), 'content: unknown field; content is read only in a provider\'s shape: add "format": "anthropic" or "gemini"');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', calls, format: 'toolgate', mode: 'fast' }), 'mode: unknown field; the fields are thread_id, format, parallel, tenant, calls');
    expect(runs).toBe(0);
  });

  it('lists several unknown fields in one message, the first with its hint', async () => {
    const body = { thread_id: 'th', calls: [{ id: 'a', tool: 'echo', arguments: {} }, { id: 'b', name: 'echo', args: {} }] };
    await expectRefused(post('/v1/dispatch', 'agent', body), 'calls[0].id: unknown field; the call id field is call_id (also unknown: calls[0].tool, calls[1].id, calls[1].args)');
  });

  it('a governed call with a misnamed field parks no approval', async () => {
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [{ id: 'g-1', name: 'guarded', arguments: { text: 'x' } }] }), 'calls[0].id: unknown field; the call id field is call_id');
    expect((await (await gw.request('/v1/approvals', { key: 'alice' })).json()).approvals).toEqual([]);
  });
});

describe('POST /v1/dispatch, provider shapes', () => {
  it('refuses a top-level field that neither toolgate nor the provider message has, and says where the calls go', async () => {
    const tool_calls = [{ id: 'call_1', type: 'function', function: { name: 'publish', arguments: '{"text":"x"}' } }];
    await expectRefused(
      post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'openai', tool_calls, priority: 'high' }),
      'priority: unknown field; with format "openai" the body holds thread_id, format, parallel, tenant and OpenAI\'s calls in tool_calls (or message.tool_calls), beside the fields of the provider\'s own message',
    );
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'anthropic', calls: [] }), 'calls: unknown field; with format "anthropic" the calls are read from content (or message.content)');
    await expectRefused(post('/v1/dispatch', 'agent', { threadId: 'th', format: 'anthropic', content: [] }), 'threadId: unknown field; the thread id field is thread_id');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'openai', tool_calls, paralell: true }), 'paralell: unknown field; did you mean parallel?');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'openai', choices: [] }), 'choices: unknown field; send one choice (or its message) of the completion, not the whole completion');
    await expectRefused(post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'gemini', candidates: [] }), 'candidates: unknown field; send one candidate (or its content) of the response, not the whole response');
    expect(runs).toBe(0);
  });

  it('the provider objects themselves are not checked: a tool call or block may carry what the SDK sends', async () => {
    const openai = await post('/v1/dispatch', 'agent', {
      thread_id: 'th', format: 'openai',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'publish', arguments: '{"text":"o"}', parsed_arguments: { text: 'o' } }, index: 0 }],
    });
    expect((await openai.json()).results[0]).toMatchObject({ call_id: 'call_1', status: 'ok' });
    const anthropic = await post('/v1/dispatch', 'agent', {
      thread_id: 'th', format: 'anthropic', content: [{ type: 'tool_use', id: 'toolu_1', name: 'publish', input: { text: 'a' }, caller: { type: 'direct' }, cache_control: null }],
    });
    expect((await anthropic.json()).results[0]).toMatchObject({ call_id: 'toolu_1', status: 'ok' });
    const gemini = await post('/v1/dispatch', 'agent', { thread_id: 'th', format: 'gemini', parts: [{ functionCall: { name: 'publish', args: { text: 'g' }, id: 'g1' }, thoughtSignature: 'c2ln' }] });
    expect((await gemini.json()).results[0]).toMatchObject({ call_id: 'g1', status: 'ok' });
  });
});

describe('POST /v1/approvals/:id', () => {
  it('a misnamed decision field is refused and the approval stays pending, its call not run', async () => {
    const parked = (await (await post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [{ call_id: 'g-1', name: 'guarded', arguments: { text: 'x' } }] })).json()).results[0];
    const id = parked.error.details.approval_id as string;
    await expectRefused(post(`/v1/approvals/${id}`, 'alice', { decision: 'approve', comment: 'fine' }), 'comment: unknown field; the reason field is reason');
    await expectRefused(post(`/v1/approvals/${id}`, 'alice', { action: 'approve' }), 'action: unknown field; the decision field is decision ("approve" or "reject")');
    await expectRefused(post(`/v1/approvals/${id}`, 'alice', { decision: 'approve', reasn: 'ok' }), 'reasn: unknown field; did you mean reason?');
    expect((await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json()).state).toBe('pending');
    expect(runs).toBe(0);
    const approved = await post(`/v1/approvals/${id}`, 'alice', { decision: 'approve', reason: 'fine' });
    expect(await approved.json()).toMatchObject({ approval: { state: 'executed', decision_reason: 'fine' }, result: { status: 'ok' } });
    expect(runs).toBe(1);
  });
});

describe('admin routes', () => {
  it('POST /v1/admin/keys: an unknown field creates no key', async () => {
    await expectRefused(post('/v1/admin/keys', 'admin', { name: 'bot', scopes: [] }), "name: unknown field; the key owner's name field is principal");
    await expectRefused(post('/v1/admin/keys', 'admin', { principal: 'bot', scope: ['a'] }), 'scope: unknown field; the scopes field is scopes (an array)');
    await expectRefused(
      post('/v1/admin/keys', 'admin', { principal: 'bot', scopes: [], tenant: 'beta' }),
      'tenant: unknown field; a key is created in the tenant of the admin key that asks for it; tenant is not a field',
    );
    const created = await post('/v1/admin/keys', 'admin', { principal: 'bot', scopes: ['admin'] });
    expect(created.status).toBe(201);
  });

  it('activate and rollback take no fields: a version sent in the body is refused, the active version kept', async () => {
    const v2 = baseManifest({ tenant: 'acme', version: '2' });
    expect((await post('/v1/admin/manifests', 'admin', v2)).status).toBe(201);
    await expectRefused(post('/v1/admin/manifests/2/activate', 'admin', { force: true }), 'force: unknown field; activate takes no body: the version to make active is in the path');
    const listed = async () => (await (await gw.request('/v1/admin/manifests', { key: 'admin' })).json()).active;
    const before = await listed();
    await expectRefused(
      post('/v1/admin/manifests/rollback', 'admin', { version: '1' }),
      'version: unknown field; rollback takes no body: it returns to the version active before; to make a given version active, POST /v1/admin/manifests/VERSION/activate',
    );
    expect(await listed()).toBe(before);
    const notObject = await post('/v1/admin/manifests/2/activate', 'admin', ['2']);
    expect(notObject.status).toBe(400);
    expect(await listed()).toBe(before);
    // No body and `{}` both work.
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
    expect(await listed()).toBe('2');
    expect((await post('/v1/admin/manifests/rollback', 'admin', {})).status).toBe(200);
    expect(await listed()).toBe(before);
  });

  it('POST /v1/admin/manifests: an unknown manifest field is a manifest problem with its path, and nothing is published', async () => {
    const writes = store.writes;
    const response = await post('/v1/admin/manifests', 'admin', { ...baseManifest({ tenant: 'acme', version: '3' }), tool: [] });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('invalid_manifest');
    expect(JSON.stringify(body.error.problems)).toContain('tool');
    expect(store.writes).toBe(writes);
  });
});

describe('POST /v1/tools/:name/validate', () => {
  it('takes {"arguments"} only', async () => {
    await expectRefused(post('/v1/tools/echo/validate', 'agent', { args: { text: 'x' } }), 'args: unknown field; the tool arguments field is arguments');
    await expectRefused(post('/v1/tools/echo/validate', 'agent', { arguments: { text: 'x' }, strict: true }), 'strict: unknown field; the fields are arguments');
    await expectRefused(post('/v1/tools/echo/validate', 'agent', {}), 'arguments is required: send {"arguments": {...}}, the arguments to check');
    expect(await (await post('/v1/tools/echo/validate', 'agent', { arguments: { text: 'x' } })).json()).toEqual({ valid: true });
  });
});

describe('messages stay bounded', () => {
  it('thousands of unknown fields and a huge key give a short message', async () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field_${i}`, i]));
    const response = await post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [], ...many });
    const { error } = await response.json();
    expect(response.status).toBe(400);
    expect(error.message).toBe('field_0: unknown field; the fields are thread_id, format, parallel, tenant, calls (also unknown: field_1, field_2, field_3, field_4, field_5, and 4994 more)');
    const huge = await (await post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [], ['k'.repeat(200_000)]: 1 })).json();
    expect(huge.error.message).toBe(`["${'k'.repeat(64)}"…]: unknown field; the fields are thread_id, format, parallel, tenant, calls`);
  });

  it('a call with 300,000 unknown keys is one short message, not a stack overflow', () => {
    const call = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, 0]));
    expect(unknownDispatchFields({ thread_id: 'th', calls: [call] }, undefined)).toBe(
      'calls[0].k0: unknown field; the fields are call_id, name, arguments (also unknown: calls[0].k1, calls[0].k2, calls[0].k3, calls[0].k4, calls[0].k5, and 299994 more)',
    );
  });

  it('control and bidi characters in a key are escaped', async () => {
    const { error } = await (await post('/v1/dispatch', 'agent', { thread_id: 'th', calls: [], 'a\u202eb\nc': 1 })).json();
    expect(error.message).toBe('["a\\u202eb\\nc"]: unknown field; the fields are thread_id, format, parallel, tenant, calls');
  });
});

describe('shapes that are not toolgate\'s own stay lenient', () => {
  it('/mcp accepts JSON-RPC requests with fields toolgate does not read', async () => {
    const response = await gw.request('/mcp', {
      key: 'agent',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      json: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 1 }, client_hint: 'x' } },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: false, content: [{ type: 'text', text: 'hi' }] } });
  });
});
