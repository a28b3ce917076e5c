/**
 * Patterns as attacks through the HTTP routes: a tenant admin publishing catastrophic patterns
 * is refused with their JSON paths; a manifest stored before the check (put in the store
 * directly) cannot stall the gateway: its calls come back with results, on both engines.
 */
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../../lib/validation/validator.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const ATTACK = `${'a'.repeat(29)}!`;
const keys = { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme' } };

const catastrophicSchema = {
  name: 'echo',
  executor: { kind: 'builtin' },
  input_schema: { type: 'object', properties: { text: { type: 'string', pattern: '^(a+)+$' } }, required: ['text'] },
};
const catastrophicKey = {
  name: 'shout',
  executor: { kind: 'builtin', name: 'echo' },
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, patternProperties: { '^(a|aa)+$': { type: 'integer' } } },
};

describe('publishing catastrophic patterns', () => {
  it('answers 400 with the JSON path of a schema pattern, a patternProperties key and a rule pattern', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({
      version: '2',
      tools: [catastrophicSchema, catastrophicKey],
      policy: { read: 'grant', rules: [{ tool: 'echo', arguments: { text: '(\\w+\\s?)*' }, action: 'deny' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    const problems = (await response.json()).error.problems as Array<{ path: string; message: string }>;
    expect(problems.map((p) => p.path)).toEqual([
      '$.tools[0].input_schema.properties.text.pattern',
      '$.tools[1].input_schema.patternProperties["^(a|aa)+$"]',
      '$.policy.rules[0].arguments.text',
    ]);
    expect(problems[0].message).toMatch(/^"\^\(a\+\)\+\$" can backtrack catastrophically: the repetition a\+ inside the repetition \(a\+\)\+/);
    expect(problems[1].message).toMatch(/^"\^\(a\|aa\)\+\$" can backtrack catastrophically: the alternatives "a" and "aa"/);
    expect(problems[2].message).toMatch(/^"\(\\\\w\+\\\\s\?\)\*" can backtrack catastrophically: the repetition \\w\+ inside the repetition/);
    // Nothing was published.
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(404);
  });

  it('refuses rule and schema patterns the linear-time matcher cannot run, saying what to write instead', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({
      version: '2',
      tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern: '^(?!admin)' } } } }],
      policy: { read: 'grant', rules: [{ tool: 'echo', arguments: { 'x-y': '(a)\\1' }, action: 'grant' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    expect((await response.json()).error.problems).toEqual([
      { path: '$.tools[0].input_schema.properties.text.pattern', message: expect.stringMatching(/^"\^\(\?!admin\)" uses lookaround .* state the condition without it/) },
      { path: '$.policy.rules[0].arguments["x-y"]', message: expect.stringMatching(/^"\(a\)\\\\1" uses a backreference .* repeat the group's pattern instead/) },
    ]);
  });
});

const ENGINES: Array<[string, () => SchemaValidator]> = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

for (const [engine, validator] of ENGINES) {
  describe(`${engine}: a manifest stored before the check`, () => {
    // Seeded manifests go to the store as they are, without the publish check: as if stored by an earlier version.
    const stored = baseManifest({
      tools: [
        catastrophicSchema,
        { name: 'say', executor: { kind: 'builtin', name: 'echo' } },
        { name: 'note', executor: { kind: 'builtin', name: 'echo' }, tier: 'execute' },
        { name: 'tell', executor: { kind: 'builtin', name: 'echo' } },
      ],
      policy: {
        read: 'grant',
        execute: 'deny',
        rules: [
          // JavaScript's RegExp takes 6-7 s on the 30-character attack; the test would time out first.
          { tool: 'say', arguments: { text: '(\\w+\\s?)*' }, action: 'deny', description: 'no plain words' },
          // A grant the matcher cannot run grants nothing; a deny it cannot run denies everything it names.
          { tool: 'note', arguments: { text: '(a)\\1' }, action: 'grant' },
          { tool: 'tell', arguments: { text: '(?!x)b' }, action: 'deny', description: 'lookaround deny' },
        ],
      },
    });

    const dispatch = async (gw: Awaited<ReturnType<typeof testGateway>>, name: string, text: string) => {
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: `${name}-${text.length}`, name, arguments: { text } }] } });
      expect(response.status).toBe(200);
      return (await response.json()).results[0] as { status: string; content: string };
    };

    it('refuses the tool whose schema is catastrophic: its calls answer an error, nothing stalls', async () => {
      // Validated by JavaScript's RegExp, the attack would take about 8 s (the test would time out first).
      const gw = await testGateway([stored], keys, { validator: validator() });
      const result = await dispatch(gw, 'echo', ATTACK);
      expect(result.status).toBe('error');
      expect(result.content).toMatch(/has an invalid input schema: properties\.text\.pattern: "\^\(a\+\)\+\$" can backtrack catastrophically/);
    });

    it('evaluates a catastrophic rule pattern in linear time, with its meaning kept', async () => {
      const gw = await testGateway([stored], keys, { validator: validator() });
      // Whole value "(\w+\s?)*": the attack does not match it (so the deny does not apply), plain words do.
      expect(await dispatch(gw, 'say', ATTACK)).toMatchObject({ status: 'ok', content: ATTACK });
      expect(await dispatch(gw, 'say', 'hello world')).toMatchObject({ status: 'denied', content: expect.stringContaining('no plain words') });
    });

    it('applies rule patterns the matcher cannot run in the direction that grants nothing', async () => {
      const gw = await testGateway([stored], keys, { validator: validator() });
      // JavaScript would have granted "aa" by the backreference rule; now the tier's deny applies.
      expect(await dispatch(gw, 'note', 'aa')).toMatchObject({ status: 'denied' });
      // The lookaround deny rule now denies every value of "text" for "tell".
      expect(await dispatch(gw, 'tell', 'hello')).toMatchObject({ status: 'denied', content: expect.stringContaining('lookaround deny') });
    });
  });
}

/** Nested groups, one distinct character per level: the publish check's worst case before it was bounded. */
function nestedPattern(levels: number): string {
  let source = '';
  for (let i = 0; i < levels; i++) source += `(?:${String.fromCodePoint(0x4e00 + i)}`;
  return source + ')*'.repeat(levels);
}

describe('publishing patterns built to stall or crash the check', () => {
  it('answers 400 with the paths for groups nested 900 deep in a schema and a rule (it answered 500, stack overflow)', async () => {
    const gw = await testGateway([], keys);
    const deep = nestedPattern(900);
    const manifest = baseManifest({
      version: '2',
      tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern: deep } } } }],
      policy: { read: 'grant', rules: [{ tool: 'echo', arguments: { text: deep }, action: 'deny' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    const problems = (await response.json()).error.problems as Array<{ path: string; message: string }>;
    expect(problems).toEqual([
      { path: '$.tools[0].input_schema.properties.text.pattern', message: expect.stringMatching(/^"\(\?:一\(\?:丁.*…" nests groups 900 deep \(at most 32\)/) },
      { path: '$.policy.rules[0].arguments.text', message: expect.stringMatching(/nests groups 900 deep \(at most 32\)/) },
    ]);
  });

  it('refuses property escapes it cannot tell apart (Georgian, Ethiopic: 40 s in JavaScript on 25 characters), and publishes the usual safe shapes', async () => {
    const gw = await testGateway([], keys);
    const tool = (name: string, pattern: string) => ({ name, executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern } } } });
    const refused = baseManifest({
      version: '2',
      tools: [tool('georgian', '^(\\p{Script=Georgian}+)+$')],
      policy: { read: 'grant', rules: [{ tool: 'georgian', arguments: { text: '^(\\p{Script=Ethiopic}+\\p{Script=Ethiopic}?)+$' }, action: 'deny' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: refused });
    expect(response.status).toBe(400);
    expect((await response.json()).error.problems).toEqual([
      { path: '$.tools[0].input_schema.properties.text.pattern', message: expect.stringMatching(/^"\^\(\\\\p\{Script=Georgian\}\+\)\+\$" can backtrack catastrophically: the repetition/) },
      { path: '$.policy.rules[0].arguments.text', message: expect.stringMatching(/^"\^\(\\\\p\{Script=Ethiopic\}.* can backtrack catastrophically/) },
    ]);
    const safe = ['^([a-z0-9]+-)*[a-z0-9]+$', '^(?:\\d{1,3}\\.){3}\\d{1,3}$', '^(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}$', '"(?:[^"\\\\]|\\\\.)*"', '^(?:\\p{L}+\\s)*\\p{L}+$'];
    const accepted = baseManifest({
      version: '3',
      tools: safe.map((pattern, i) => tool(`safe${i}`, pattern)),
      policy: { read: 'grant', rules: safe.map((pattern, i) => ({ tool: `safe${i}`, arguments: { text: pattern }, action: 'deny' as const })) },
    });
    expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: accepted })).status).toBe(201);
  });

  it('answers a whole 1 MiB manifest of the check\'s worst shapes, each pattern judged', async () => {
    const gw = await testGateway([], keys);
    const cjk = (i: number) => String.fromCodePoint(0x4e00 + (i % 20_000));
    const shapes = [
      (i: number) => `(?:${Array.from({ length: 900 }, (_, k) => cjk(3 * k + i)).join('|')})*`, // accepted: distinct starts
      (i: number) => nestedPattern(32).replace('一', String.fromCodePoint(0x20000 + i)), // accepted: 32 levels
      (i: number) => `(?:${Array.from({ length: 300 }, (_, k) => `[\\p{L}${cjk(7 * k + i)}]`).join('|')})*`, // refused: overlapping starts
      (i: number) => `(?:${Array.from({ length: 900 }, (_, k) => `${cjk(2 * k + i)}?`).join('')}${cjk(i)})*`, // refused: the first x? before the last x
    ];
    const properties: Record<string, { type: string; pattern: string }> = {};
    const bytes = (text: string) => new TextEncoder().encode(text).length;
    for (let i = 0, size = 0; ; i++) {
      const pattern = shapes[i % shapes.length](i);
      size += bytes(JSON.stringify({ [`p${i}`]: { type: 'string', pattern } }));
      if (size > 1_000_000) break;
      properties[`p${i}`] = { type: 'string', pattern };
    }
    const manifest = baseManifest({ version: '2', tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: { type: 'object', properties } }] });
    const body = JSON.stringify(manifest);
    expect(bytes(body)).toBeGreaterThan(990_000);
    expect(bytes(body)).toBeLessThan(1024 * 1024);
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    const problems = (await response.json()).error.problems as Array<{ path: string; message: string }>;
    const count = Object.keys(properties).length;
    // Every third and fourth shape refused, with its path; none of the others.
    expect(problems.map((p) => p.path)).toEqual(Object.keys(properties).filter((_, i) => i % 4 >= 2).map((name) => `$.tools[0].input_schema.properties.${name}.pattern`));
    expect(problems.every((p) => /can backtrack catastrophically/.test(p.message))).toBe(true);
    expect(count).toBeGreaterThan(100);
  }, 60_000);
});

/** A value no cache absorbs: each position is a new set of 600 threads of `[ab]*a[ab]{600}`. */
function aperiodic(length: number, seed: number): string {
  let state = seed;
  return Array.from({ length }, () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) >> 16) & 1 ? 'a' : 'b').join('');
}

describe('a request whose calls would match for too long', () => {
  const CRAFTED = '[ab]*a[ab]{600}';
  const attackManifest = baseManifest({
    tools: [
      { name: 'pat', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern: CRAFTED } }, required: ['text'] } },
      { name: 'echo', executor: { kind: 'builtin' } },
    ],
    policy: { read: 'grant', rules: [{ tool: 'pat', arguments: { text: CRAFTED }, action: 'deny' }] },
  });

  /** A gateway whose echo tools count their runs. */
  async function countingGateway() {
    const gw = await testGateway([attackManifest], keys);
    const runtime = (await gw.tenants.runtime('acme'))!;
    const counter = { runs: 0 };
    for (const name of ['pat', 'echo']) {
      const executor = runtime.registry.get(name)!;
      runtime.registry.register({ ...executor, execute: async (args, ctx) => (counter.runs++, executor.execute(args, ctx)) }, { replace: true });
    }
    return { gw, counter };
  }

  /** A cheap call, then attacks, then a cheap call: 128 in all (the most a request may hold). */
  const attackCalls = (count = 128) => [
    { call_id: 'first', name: 'echo', arguments: { text: 'before' } },
    ...Array.from({ length: count - 2 }, (_, i) => ({ call_id: `attack-${i}`, name: 'pat', arguments: { text: aperiodic(1000, i + 1) } })),
    { call_id: 'last', name: 'echo', arguments: { text: 'after' } },
  ];

  type Result = { call_id: string; status: string; content: string };

  const SPENT = /^`pat` was not run: matching its arguments against the schema's and the policy's patterns used up the time this request may spend on patterns\. Send shorter values, or this call in a request of its own/;
  const REFUSED = /^`(pat|echo)` was not run: this request used up its time for matching arguments against patterns on its earlier calls\. Send this call again in another request/;

  /**
   * The calls before the budget ran out have their results; from the first refused one on, all are
   * refused and none ran. The call that spent the budget says so, and every later one was refused
   * before matching anything (an MCP batch's messages are handled in order too).
   */
  function expectCutShort(results: Result[], runs: number) {
    expect(results[0]).toMatchObject({ call_id: 'first', status: 'ok', content: 'before' });
    const cut = results.findIndex((r) => r.status === 'error');
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(64);
    expect(results[cut]).toMatchObject({ status: 'error', content: expect.stringMatching(SPENT) });
    for (const result of results.slice(cut + 1)) expect(result).toMatchObject({ status: 'error', content: expect.stringMatching(REFUSED) });
    expect(results.at(-1)).toMatchObject({ call_id: 'last', status: 'error' });
    expect(runs).toBe(results.slice(0, cut).filter((r) => r.status === 'ok').length);
  }

  for (const parallel of [false, true]) {
    it(`shares one budget between all its calls (${parallel ? 'parallel' : 'sequential'}): the rest answer an error and run nothing`, async () => {
      const { gw, counter } = await countingGateway();
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: `t-${parallel}`, parallel, calls: attackCalls() } });
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: Result[] };
      expect(results.map((r) => r.call_id)).toEqual(attackCalls().map((c) => c.call_id));
      expectCutShort(results, counter.runs);
    });
  }

  it('gives every request its own budget: a neighbour sent meanwhile is not cut short', async () => {
    const { gw } = await countingGateway();
    const neighbourCalls = Array.from({ length: 20 }, (_, i) => ({ call_id: `n${i}`, name: 'echo', arguments: { text: `n${i}` } }));
    const [attack, neighbour] = await Promise.all([
      gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'a', parallel: true, calls: attackCalls() } }),
      gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'n', parallel: true, calls: neighbourCalls } }),
    ]);
    expect(((await attack.json()) as { results: Result[] }).results.at(-1)).toMatchObject({ status: 'error' });
    expect(((await neighbour.json()) as { results: Result[] }).results.map((r) => r.status)).toEqual(neighbourCalls.map(() => 'ok'));
    // And the next request from the attacker starts with a budget of its own.
    const again = (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'a2', calls: [{ call_id: 'x', name: 'echo', arguments: { text: 'x' } }] } })).json()) as { results: Result[] };
    expect(again.results[0]).toMatchObject({ status: 'ok' });
  });

  it('shares one budget between the tools/call messages of one MCP request (a JSON-RPC batch)', async () => {
    const { gw, counter } = await countingGateway();
    // The SDK's transport takes up to 100 messages in a batch.
    const calls = attackCalls(100);
    const batch = calls.map((call, id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: call.name, arguments: call.arguments } }));
    const response = await gw.request('/mcp', { key: 'agent', json: batch, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Array<{ id: number; result: { isError: boolean; content: Array<{ text: string }>; _meta: Record<string, string> } }>;
    const results = answers
      .sort((a, b) => a.id - b.id)
      .map((answer) => ({ call_id: calls[answer.id].call_id, status: answer.result._meta['toolgate/status'], content: answer.result.content[0].text }));
    expectCutShort(results, counter.runs);
  });
});
