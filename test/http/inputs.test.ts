import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, validManifest } from '../helpers/manifests.ts';

/**
 * Every input bounded, as attacks: a key holder sends what JSON and URLs allow but the gateway
 * cannot take. Each answer is a 4xx naming the field and what is allowed — never a 500, never a
 * wedge — and nothing is run or stored. On SQLite, where `limit=-1` spun forever.
 */
let gw: Awaited<ReturnType<typeof testGateway>>;
let runs = 0;
let approvalId: string;

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

beforeAll(async () => {
  const tools = [
    { name: 'echo', executor: { kind: 'builtin' } },
    { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' } },
  ];
  const acme = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'review' }, tools });
  gw = await testGateway([acme], {
    admin: { tenant: 'acme', principal: 'root', scopes: ['admin', 'approvals:decide', 'audit:read'] },
    agent: { tenant: 'acme', principal: 'agent', scopes: [] },
  }, { store: new SqliteStore(':memory:') });
  const runtime = (await gw.tenants.runtime('acme'))!;
  for (const name of ['echo', 'publish']) {
    const tool = runtime.registry.get(name)!;
    runtime.registry.register({ ...tool, execute: async (args, ctx) => { runs++; return tool.execute(args, ctx); } }, { replace: true });
  }
  // Three parked calls, so listings have pages to walk.
  for (const call_id of ['p1', 'p2', 'p3']) {
    const body = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'parked', calls: [{ call_id, name: 'publish', arguments: { text: call_id } }] } })).json();
    approvalId = body.results[0].error.details.approval_id;
  }
});
afterAll(async () => {
  await gw.store.close();
});

async function expectError(response: Response, status: number, code: string, message: RegExp) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(JSON.parse(text).error).toMatchObject({ code, message: expect.stringMatching(message) });
}

const get = (path: string, key = 'admin') => gw.request(path, { key });
const post = (path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}, key = 'admin') =>
  gw.request(path, { key, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('query parameters', () => {
  it('GET /v1/approvals?limit=-1 (the wedge) and every other bad limit answer 400 at once; the gateway keeps serving', async () => {
    for (const limit of ['-1', '0', '0.5', '1e2', 'abc', '', '201', '99999999999999999999', ' 5', '0x10']) {
      await expectError(await get(`/v1/approvals?limit=${encodeURIComponent(limit)}`), 400, 'invalid_request', /^limit must be a whole number from 1 to 200 \(got /);
    }
    await expectError(await get('/v1/approvals?limit=1&limit=2'), 400, 'invalid_request', /^limit is given 2 times; give it at most once$/);
    // Paging still works, one by one to the end.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await (await get(`/v1/approvals?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json();
      seen.push(...page.approvals.map((a: { id: string }) => a.id));
      cursor = page.next_cursor;
    } while (cursor !== undefined && seen.length < 10);
    expect(seen).toHaveLength(3);
    expect(seen.at(-1)).toBe(approvalId);
  });

  it('cursor, state, thread_id, wait, format, tag, from/to: 400 naming the parameter and what it takes', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/approvals?cursor=-5', /^cursor must be the next_cursor of a previous page/],
      ['/v1/approvals?cursor=99999999999999999', /^cursor must be the next_cursor/],
      ['/v1/approvals?state=open', /^state must be one of pending, approved, rejected, expired, executed, interrupted, withdrawn$/],
      ['/v1/approvals?state=pending&state=approved', /^state is given 2 times/],
      ['/v1/audit', /^thread_id is required: 1-200 characters of letters, digits/],
      ['/v1/audit?thread_id=a%20b', /^thread_id must be 1-200 characters of letters, digits and _ \. : @ - \(got "a b"\)$/],
      [`/v1/audit?thread_id=${'t'.repeat(201)}`, /^thread_id must be 1-200/],
      ['/v1/audit?thread_id=t&limit=501', /^limit must be a whole number from 1 to 500/],
      ['/v1/audit?thread_id=t&cursor=1.5', /^cursor must be the next_cursor/],
      ['/v1/calls/p1?thread_id=parked&wait=-1', /^wait must be a number of seconds from 0 to 25, with at most 3 decimals \(got "-1"\)$/],
      ['/v1/calls/p1?thread_id=parked&wait=26', /^wait must be a number of seconds from 0 to 25/],
      ['/v1/calls/p1?thread_id=parked&wait=NaN', /^wait must be a number of seconds/],
      ['/v1/calls/p1?thread_id=parked&wait=Infinity', /^wait must be a number of seconds/],
      ['/v1/calls/p1', /^thread_id is required/],
      ['/v1/tools?format=', /^format must be one of toolgate, openai, responses, anthropic, gemini, mcp$/],
      [`/v1/tools?tag=${'x'.repeat(201)}`, /^each tag must be at most 200 characters$/],
      [`/v1/tools?tag=${Array.from({ length: 51 }, (_, i) => i).join(',')}`, /^tag names at most 50 tags \(got 51\)$/],
      ['/v1/admin/manifests/diff?from=1', /^to is required: 1-64 letters/],
      ['/v1/admin/manifests/diff?from=1&to=..%2F..', /^to must be 1-64 letters, digits and \. _ -/],
    ];
    for (const [path, message] of cases) await expectError(await get(path), 400, 'invalid_request', message);
    // A valid wait on a parked call answers pending once the wait is over (0.2 s here).
    const polled = await (await get('/v1/calls/p1?thread_id=parked&wait=0.2', 'agent')).json();
    expect(polled.status).toBe('pending_approval');
  });

  it('path identifiers of a shape that cannot exist are 404 without a lookup', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/approvals/apr_nope', /^approval id "apr_nope" does not exist: approval ids are "apr_" and 24 hex digits/],
      [`/v1/approvals/apr_${'0'.repeat(5000)}`, /^approval id "apr_0+…" does not exist/],
      [`/v1/calls/${'c'.repeat(201)}?thread_id=parked`, /^call id "c+…" does not exist: call ids are 1-200 characters/],
      ['/v1/tools/no%20such%20tool', /^tool name "no such tool" does not exist/],
      ['/v1/admin/manifests/..%2F..%2Fsecret', /^version "\.\.\/\.\.\/secret" does not exist: versions are 1-64 letters/],
    ];
    for (const [path, message] of cases) await expectError(await get(path), 404, 'not_found', message);
    await expectError(await post(`/v1/approvals/apr_${'f'.repeat(300)}`, '{"decision":"approve"}'), 404, 'not_found', /^approval id /);
    await expectError(await post('/v1/admin/manifests/%00/activate', ''), 404, 'not_found', /^version "\\u0000" does not exist/);
  });
});

describe('bodies', () => {
  it('null, arrays and scalars where an object belongs are 400, not 500 (admin keys, approval decisions)', async () => {
    for (const body of ['null', '[]', '"x"', '7', 'true']) {
      await expectError(await post('/v1/admin/keys', body), 400, 'invalid_request', /^the body must be a JSON object, got /);
      await expectError(await post(`/v1/approvals/${approvalId}`, body), 400, 'invalid_request', /^the body must be a JSON object, got /);
      await expectError(await post('/v1/dispatch', body), 400, 'invalid_request', /^the body must be a JSON object/);
      await expectError(await post('/v1/admin/manifests', body), 400, 'invalid_manifest', /problem/);
    }
    await expectError(await post('/v1/admin/keys', JSON.stringify({ principal: 'x', scopes: Array.from({ length: 51 }, (_, i) => `s${i}`) })), 400, 'invalid_request', /^scopes must be an array of at most 50/);
    await expectError(await post(`/v1/approvals/${approvalId}`, JSON.stringify({ decision: 'reject', reason: 'r'.repeat(2001) })), 400, 'invalid_request', /^reason must be a string of at most 2000 characters$/);
    expect((await (await get(`/v1/approvals/${approvalId}`)).json()).state).toBe('pending');
  });

  it('a lone surrogate is refused at the body with its JSON path: nothing runs, nothing is stored', async () => {
    // The manifest that answered 500: a lone surrogate as a key of a rule's arguments.
    const manifest = JSON.stringify({ ...baseManifest({ tenant: 'acme', version: '9' }), policy: { read: 'grant', write: 'grant', execute: 'deny', rules: [{ tool: 'echo', arguments: { '\ud800': 'a' }, action: 'grant' }] } });
    await expectError(await post('/v1/admin/manifests', manifest), 400, 'invalid_json', /^request body refused: \$\.policy\.rules\[0\]\.arguments: the key "\\ud800" contains a lone surrogate \(\\ud800\): JSON text must be valid Unicode/);
    expect((await (await get('/v1/admin/manifests')).json()).versions.map((v: { version: string }) => v.version)).toEqual(['1']);

    const before = runs;
    const dispatch = '{"thread_id":"lone","calls":[{"call_id":"c1","name":"echo","arguments":{"text":"\\udc00 tail"}}]}';
    await expectError(await post('/v1/dispatch', dispatch), 400, 'invalid_json', /^request body refused: \$\.calls\[0\]\.arguments\.text: the string contains a lone surrogate \(\\udc00\)/);
    const callId = '{"thread_id":"lone","calls":[{"call_id":"\\ud800","name":"publish","arguments":{"text":"x"}}]}';
    await expectError(await post('/v1/dispatch', callId), 400, 'invalid_json', /\$\.calls\[0\]\.call_id: the string contains a lone surrogate/);
    await expectError(await post(`/v1/approvals/${approvalId}`, '{"decision":"reject","reason":"\\ud83d"}'), 400, 'invalid_json', /\$\.reason: the string/);
    const mcp = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\\ud800"}}}';
    await expectError(await post('/mcp', mcp, MCP_HEADERS), 400, 'invalid_json', /\$\.params\.arguments\.text/);
    expect(runs).toBe(before);
    expect((await (await get('/v1/audit?thread_id=lone')).json()).envelopes).toEqual([]);
    expect((await (await get(`/v1/approvals/${approvalId}`)).json()).state).toBe('pending');
    // A proper pair is text like any other.
    const pair = await (await post('/v1/dispatch', '{"thread_id":"lone","calls":[{"name":"echo","arguments":{"text":"\\ud83d\\ude00"}}]}')).json();
    expect(pair.results[0]).toMatchObject({ status: 'ok', content: '😀' });
  });

  it('a lone surrogate inside JSON-string arguments is the model\'s invalid_arguments, and the tool does not run', async () => {
    const before = runs;
    const body = JSON.stringify({ thread_id: 'inner', calls: [{ call_id: 'i1', name: 'echo', arguments: '{"text":"\\ud800"}' }] });
    const result = (await (await post('/v1/dispatch', body)).json()).results[0];
    expect(result).toMatchObject({ status: 'invalid_arguments', error: { details: { path: 'arguments.text' } } });
    expect(result.content).toMatch(/^arguments\.text: the string contains a lone surrogate \(\\ud800\).*Fix the arguments and call the tool again\.$/);
    const overflow = (await (await post('/v1/dispatch', JSON.stringify({ thread_id: 'inner', calls: [{ name: 'echo', arguments: '{"text":"a","n":1e400}' }] }))).json()).results[0];
    expect(overflow.content).toMatch(/^arguments\.n: the number is out of range \(it overflows to Infinity\)/);
    expect(runs).toBe(before);
  });

  it('invalid UTF-8, overflowing numbers and deep nesting are 400 before anything parses them further', async () => {
    const before = runs;
    const invalidUtf8 = new Uint8Array([...new TextEncoder().encode('{"thread_id":"t","calls":[{"name":"echo","arguments":{"text":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}}]}')]);
    await expectError(await post('/v1/dispatch', invalidUtf8), 400, 'invalid_json', /^request body is not valid UTF-8; send JSON text encoded as UTF-8$/);
    await expectError(await post('/v1/dispatch', '{"thread_id":"t","calls":[{"name":"echo","arguments":{"text":"a","n":-1e400}}]}'), 400, 'invalid_json', /\$\.calls\[0\]\.arguments\.n: the number is out of range \(it overflows to -Infinity\)/);
    const deep = `{"thread_id":"t","calls":[{"name":"echo","arguments":{"text":"a","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}`;
    await expectError(await post('/v1/dispatch', deep), 400, 'invalid_json', /: nested more than 64 levels deep; flatten the value$/);
    await expectError(await post('/v1/admin/manifests', `${'['.repeat(1000)}${']'.repeat(1000)}`), 400, 'invalid_json', /nested more than 64 levels/);
    await expectError(await post('/mcp', `[${'{"a":'.repeat(200)}1${'}'.repeat(200)}]`, MCP_HEADERS), 400, 'invalid_json', /nested more than 64/);
    expect(runs).toBe(before);
  });

  it('ids from provider shapes and the Idempotency-Key header are bounded like the others', async () => {
    await expectError(await post('/v1/dispatch', JSON.stringify({ thread_id: 't', format: 'openai', tool_calls: [{ id: 'x'.repeat(201), type: 'function', function: { name: 'echo', arguments: '{}' } }] })), 400, 'invalid_request', /^the id of call 0 must be 1-200 characters, no control characters \(got 201 characters\)$/);
    await expectError(await post('/v1/dispatch', JSON.stringify({ thread_id: 't', format: 'anthropic', content: [{ type: 'tool_use', id: 'a\nb', name: 'echo', input: {} }] })), 400, 'invalid_request', /^the id of call 0 must be/);
    await expectError(await post('/v1/dispatch', JSON.stringify({ thread_id: 't', calls: [] }), { 'idempotency-key': 'k'.repeat(256) }), 400, 'invalid_request', /^the Idempotency-Key header must be 1-255 characters$/);
  });
});
