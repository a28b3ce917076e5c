import { beforeAll, describe, expect, it } from 'vitest';
import { baseManifest, validManifest } from '../helpers/manifests.ts';
import { testGateway } from '../helpers/gateway.ts';

let gw: Awaited<ReturnType<typeof testGateway>>;

beforeAll(async () => {
  const acme = validManifest({
    tenant: 'acme',
    tools: [
      { name: 'echo', tags: ['diagnostics', 'text'], executor: { kind: 'builtin' } },
      { name: 'sleep', timeout_ms: 100, executor: { kind: 'builtin' } },
      { name: 'shout', executor: { kind: 'builtin', name: 'echo' }, scopes: ['loud'], tags: ['text'] },
    ],
  });
  const beta = validManifest({ ...baseManifest(), tenant: 'beta', tools: [{ name: 'beta_secret_tool', executor: { kind: 'builtin', name: 'echo' } }] });
  gw = await testGateway([acme, beta], { 'key-acme': { tenant: 'acme' }, 'key-acme-loud': { tenant: 'acme', scopes: ['loud'] }, 'key-beta': { tenant: 'beta' } }, { bodyLimitBytes: 4096 });
});

const dispatch = (json: unknown, headers: Record<string, string> = {}) => gw.request('/v1/dispatch', { key: 'key-acme', json, headers });

describe('authentication', () => {
  it('401 without a key and with a bad key, with a JSON error', async () => {
    const none = await gw.request('/v1/tools');
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: 'unauthorized', message: 'missing API key: send "Authorization: Bearer <key>"' } });
    const bad = await gw.request('/v1/tools', { key: 'not-a-key' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: { code: 'unauthorized', message: 'invalid API key' } });
  });

  it('health needs no key', async () => {
    const health = await gw.request('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', store: 'memory' });
  });
});

describe('GET /v1/tools', () => {
  it('lists the tenant tools in each format, filtered by tag', async () => {
    const own = await (await gw.request('/v1/tools', { key: 'key-acme-loud' })).json();
    expect(own).toMatchObject({ tenant: 'acme', version: '1', format: 'toolgate' });
    expect(own.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'sleep', 'shout']);
    const openai = await (await gw.request('/v1/tools?format=openai&tag=text', { key: 'key-acme-loud' })).json();
    expect(openai.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['echo', 'shout']);
    const both = await (await gw.request('/v1/tools?format=anthropic&tag=text&tag=diagnostics', { key: 'key-acme' })).json();
    expect(both.tools).toEqual([{ name: 'echo', description: expect.any(String), input_schema: expect.objectContaining({ type: 'object' }) }]);
    const gemini = await (await gw.request('/v1/tools?format=gemini', { key: 'key-acme-loud' })).json();
    expect(gemini.tools[0].functionDeclarations).toHaveLength(3);
    const mcp = await (await gw.request('/v1/tools?format=mcp', { key: 'key-acme' })).json();
    expect(mcp.tools[0].annotations.readOnlyHint).toBe(true);
  });

  it('lists only the tools the key may call: shout needs the scope "loud" this key lacks', async () => {
    const listed = await (await gw.request('/v1/tools', { key: 'key-acme' })).json();
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'sleep']);
    const tagged = await (await gw.request('/v1/tools?format=openai&tag=text', { key: 'key-acme' })).json();
    expect(tagged.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['echo']);
    const refused = await (await dispatch({ thread_id: 't', calls: [{ name: 'shout', arguments: { text: 'hi' } }] })).json();
    expect(refused.results[0].status).toBe('forbidden');
  });

  it('400 for an unknown format', async () => {
    const response = await gw.request('/v1/tools?format=cobol', { key: 'key-acme' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe('format must be one of toolgate, openai, responses, anthropic, gemini, mcp');
  });
});

describe('tenant isolation', () => {
  it("another tenant's tool is 404 and cannot be dispatched", async () => {
    const own = await gw.request('/v1/tools/beta_secret_tool', { key: 'key-beta' });
    expect(own.status).toBe(200);
    const cross = await gw.request('/v1/tools/beta_secret_tool', { key: 'key-acme' });
    expect(cross.status).toBe(404);
    expect(await cross.json()).toEqual({ error: { code: 'not_found', message: 'tool "beta_secret_tool" not found' } });
    const validate = await gw.request('/v1/tools/beta_secret_tool/validate', { key: 'key-acme', json: { arguments: { text: 'x' } } });
    expect(validate.status).toBe(404);
    const body = await (await dispatch({ thread_id: 't', calls: [{ call_id: 'a', name: 'beta_secret_tool', arguments: { text: 'x' } }] })).json();
    expect(body.results[0].status).toBe('unknown_tool');
  });

  it('naming another tenant answers 404, never 403', async () => {
    expect((await gw.request('/v1/tools?tenant=beta', { key: 'key-acme' })).status).toBe(404);
    expect((await gw.request('/v1/tools', { key: 'key-acme', headers: { 'x-toolgate-tenant': 'beta' } })).status).toBe(404);
    expect((await gw.request('/v1/tools?tenant=acme', { key: 'key-acme' })).status).toBe(200);
    const response = await dispatch({ tenant: 'beta', thread_id: 't', calls: [] });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'tenant "beta" not found' } });
  });
});

describe('request errors', () => {
  it('400 for malformed JSON and for bodies of the wrong shape', async () => {
    const malformed = await gw.request('/v1/dispatch', { key: 'key-acme', method: 'POST', body: '{"thread_id": ' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/^request body is not valid JSON: /) });
    const cases: Array<[unknown, string]> = [
      [[1, 2], 'the body must be a JSON object'],
      [{ calls: [] }, 'thread_id is required: 1-200 characters of letters, digits and _ . : @ -'],
      [{ thread_id: 't' }, 'calls must be an array of {call_id?, name, arguments} (or send a provider shape with "format")'],
      [{ thread_id: 't', calls: [{ arguments: {} }] }, 'calls[0].name must be a non-empty string'],
      [{ thread_id: 't', calls: [{ call_id: 'a', name: 'echo' }, { call_id: 'a', name: 'echo' }] }, 'call_id "a" appears twice in one request'],
      [{ thread_id: 't', format: 'cohere', calls: [] }, 'format must be one of toolgate, openai, responses, anthropic, gemini (got "cohere")'],
      [{ thread_id: 't', parallel: 'yes', calls: [] }, 'parallel must be true or false'],
    ];
    for (const [body, message] of cases) {
      const response = await dispatch(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toEqual({ error: { code: 'invalid_request', message } });
    }
  });

  it('413 over the body limit, before the body is parsed', async () => {
    const response = await dispatch({ thread_id: 't', calls: [{ name: 'echo', arguments: { text: 'x'.repeat(5000) } }] });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: 'payload_too_large', message: 'request body is larger than 4096 bytes' } });
  });

  it('404 JSON for unknown routes', async () => {
    const response = await gw.request('/v2/nothing', { key: 'key-acme' });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
  });
});

describe('POST /v1/dispatch', () => {
  it('answers 200 with one result per call, in order, whatever the tools did', async () => {
    const response = await dispatch({
      thread_id: 'thread-1',
      parallel: true,
      calls: [
        { call_id: 'a', name: 'sleep', arguments: { ms: 1000 } },
        { call_id: 'b', name: 'echo', arguments: { text: 'hello' } },
        { call_id: 'c', name: 'nope', arguments: {} },
        { call_id: 'd', name: 'echo', arguments: '{"text": 3}' },
        { call_id: 'e', name: 'shout', arguments: { text: 'hey' } },
      ],
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.thread_id).toBe('thread-1');
    expect(body.messages).toBeUndefined();
    expect(body.results.map((r: { call_id: string; status: string }) => [r.call_id, r.status])).toEqual([
      ['a', 'timeout'],
      ['b', 'ok'],
      ['c', 'unknown_tool'],
      ['d', 'invalid_arguments'],
      ['e', 'forbidden'],
    ]);
    expect(Object.keys(body.results[1]).sort()).toEqual(['call_id', 'content', 'duration_ms', 'is_error', 'name', 'status', 'truncated']);
    expect(Object.keys(body.results[2]).sort()).toEqual(['call_id', 'content', 'duration_ms', 'error', 'is_error', 'name', 'status', 'truncated']);
  });

  it('takes provider shapes and answers with the provider messages too', async () => {
    const openai = await (await dispatch({ thread_id: 't', format: 'openai', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }] })).json();
    expect(openai.messages).toEqual([{ role: 'tool', tool_call_id: 'call_9', content: 'hi' }]);
    const anthropic = await (await dispatch({ thread_id: 't', format: 'anthropic', content: [{ type: 'tool_use', id: 'toolu_1', name: 'nope', input: {} }] })).json();
    expect(anthropic.messages[0].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true });
    const gemini = await (await dispatch({ thread_id: 't', format: 'gemini', parts: [{ functionCall: { name: 'echo', args: { text: 'g' } } }] })).json();
    expect(gemini.messages[0].parts[0].functionResponse).toEqual({ name: 'echo', response: { output: 'g' } });
    expect(gemini.results[0].call_id).toMatch(/^gemini_/);
  });

  it('gives calls without ids stable ids derived from the Idempotency-Key header', async () => {
    const body = { thread_id: 't', calls: [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }] };
    const first = await (await dispatch(body, { 'idempotency-key': 'req-77' })).json();
    const again = await (await dispatch(body, { 'idempotency-key': 'req-77' })).json();
    const other = await (await dispatch(body, { 'idempotency-key': 'req-78' })).json();
    const random = await (await dispatch(body)).json();
    const ids = (r: { results: Array<{ call_id: string }> }) => r.results.map((x) => x.call_id);
    expect(ids(first)).toEqual(ids(again));
    expect(ids(first)[0]).not.toBe(ids(first)[1]);
    expect(ids(other)).not.toEqual(ids(first));
    expect(ids(random)).not.toEqual(ids(first));
  });
});

describe('POST /v1/tools/:name/validate', () => {
  it('checks arguments without running the tool', async () => {
    const good = await gw.request('/v1/tools/echo/validate', { key: 'key-acme', json: { arguments: { text: 'x' } } });
    expect(await good.json()).toEqual({ valid: true });
    const bad = await (await gw.request('/v1/tools/echo/validate', { key: 'key-acme', json: { arguments: '{"text": 1}' } })).json();
    expect(bad).toMatchObject({ valid: false, error: { code: 'invalid_arguments', message: expect.stringContaining('`text` must be a string, got number 1') } });
  });
});
