/**
 * A schema the publish check accepts still costs the engines work per value of the arguments: an
 * anyOf of 999 branches over array items made one call of 10,000 wrong items (50 KB) block ajv
 * 12 s and the eval-free engine 31 s, and a request may hold 128 calls. Each request may spend
 * REQUEST_VALIDATION_WORK (the schema's worst figure per value × the values), charged before an
 * engine starts: a call over it answers at once, and the request's later calls are refused with
 * nothing run. Outcomes and counts, never time.
 */
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { schemaWork } from '../../lib/validation/schema-cost.ts';
import type { SchemaValidator } from '../../lib/validation/validator.ts';
import { REQUEST_VALIDATION_WORK } from '../../lib/validation/work-budget.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const keys = { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme' } };
/** The widest anyOf the publish check accepts, applied to every item. */
const WIDE = { type: 'object', properties: { x: { type: 'array', items: { anyOf: Array.from({ length: 999 }, (_, i) => ({ const: i })) } } }, required: ['x'] };
/**
 * Property names: every object value makes both engines go through them all (20,000 names over
 * 10,000 empty objects kept ajv 18 s and the eval-free engine 87 s, when a value counted 1).
 */
const names = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string' }]));
const MANY_NAMES = names(900);
/** An enum of 20,000 members compared with every item. */
const BIG_ENUM = { type: 'object', properties: { x: { type: 'array', items: { enum: Array.from({ length: 20_000 }, (_, i) => `v${i}`) } } }, required: ['x'] };
const manifest = baseManifest({
  version: '2',
  tools: [
    { name: 'wide', executor: { kind: 'builtin', name: 'echo' }, input_schema: WIDE },
    { name: 'big_enum', executor: { kind: 'builtin', name: 'echo' }, input_schema: BIG_ENUM },
    { name: 'many_names', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'object', properties: MANY_NAMES } } } } },
    { name: 'echo', executor: { kind: 'builtin' } },
  ],
});
const items = (count: number, value: number | string) => ({ x: Array.from({ length: count }, () => value) });

type Result = { call_id: string; status: string; content: string; error?: { details?: Record<string, unknown> } };


describe('the work a schema may cost per value', () => {
  it('weighs each subschema by the lists its keywords go through', () => {
    expect(schemaWork({ type: 'object', properties: { text: { type: 'string' } } })).toEqual({ root: 2, inside: 1 });
    expect(schemaWork({ type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'], dependentRequired: { a: ['b'] } })).toEqual({ root: 7, inside: 1 });
    expect(schemaWork(WIDE)).toEqual({ root: 3, inside: 1_000 });
    expect(schemaWork(BIG_ENUM)).toEqual({ root: 3, inside: 20_001 });
    expect(schemaWork({ type: 'object', properties: { xs: { type: 'array', items: { type: 'object', properties: MANY_NAMES } } } }).inside).toBe(901);
    expect(schemaWork({ type: 'object', properties: { xs: { type: 'array', items: { required: Object.keys(names(20_000)) } } } }).inside).toBe(20_001);
    // A schema the analysis refuses is never compiled; were it asked, it costs everything.
    expect(schemaWork({ type: 'object', properties: names(1_001) }).root).toBe(Infinity);
    expect(schemaWork({ $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }).root).toBe(Infinity);
  });
});

for (const [engine, make] of [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
] as Array<[string, () => SchemaValidator]>) {
  describe(`${engine}: validation work bounded per request`, () => {
    async function gateway() {
      const gw = await testGateway([], keys, { validator: make() });
      expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest })).status).toBe(201);
      expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(200);
      const runtime = (await gw.tenants.runtime('acme'))!;
      const counter = { runs: 0 };
      for (const name of ['wide', 'big_enum', 'many_names', 'echo']) {
        const executor = runtime.registry.get(name)!;
        runtime.registry.register({ ...executor, execute: async (args, ctx) => (counter.runs++, executor.execute(args, ctx)) }, { replace: true });
      }
      return { gw, counter };
    }
    const dispatch = async (gw: Awaited<ReturnType<typeof gateway>>['gw'], thread: string, calls: object[]) => {
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: thread, calls } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { results: Result[] }).results;
    };

    it('validates a call within the budget as before, and refuses one over it unvalidated, naming the values and the figure', async () => {
      const { gw, counter } = await gateway();
      const [within] = await dispatch(gw, 'w', [{ call_id: 'a', name: 'wide', arguments: items(200, 5000) }]);
      expect(within.status).toBe('invalid_arguments');
      expect(within.content).toContain('`x[0]` must match one of');
      const [over] = await dispatch(gw, 'o', [{ call_id: 'b', name: 'wide', arguments: items(10_000, 5000) }]);
      expect(over.status).toBe('invalid_arguments');
      expect(over.content).toMatch(/^`wide` was not run: its arguments hold 10,002 values, and its schema may apply up to 1,000 subschemas to each, more validation work than one request may take \(250,000\)\. Send fewer values/);
      expect(over.error?.details).toMatchObject({ reason: 'validation_budget_spent', values: 10_002, work_per_value: 1_000, request_work: REQUEST_VALIDATION_WORK });
      // Valid values are charged alike: the engine's cost is only known once it has run.
      const [valid] = await dispatch(gw, 'v', [{ call_id: 'c', name: 'wide', arguments: items(10_000, 0) }]);
      expect(valid.status).toBe('invalid_arguments');
      const [enumOver] = await dispatch(gw, 'e', [{ call_id: 'd', name: 'big_enum', arguments: items(100, 'nope') }]);
      expect(enumOver.error?.details).toMatchObject({ reason: 'validation_budget_spent', work_per_value: 20_001 });
      // Valid empty objects cost as much: each makes the engine go through 900 names.
      const [named] = await dispatch(gw, 'n', [{ call_id: 'e', name: 'many_names', arguments: { xs: Array.from({ length: 10_000 }, () => ({})) } }]);
      expect(named.error?.details).toMatchObject({ reason: 'validation_budget_spent', values: 10_002, work_per_value: 901 });
      expect(counter.runs).toBe(0);
    });

    it("shares the budget between a request's calls: the rest answer an error and run nothing; the next request has its own", async () => {
      const { gw, counter } = await gateway();
      // 100 valid items × 1,000 + 3 = 100,003 each: two fit in 250,000, the third does not.
      const calls = [
        { call_id: 'first', name: 'echo', arguments: { text: 'before' } },
        ...Array.from({ length: 6 }, (_, i) => ({ call_id: `w${i}`, name: 'wide', arguments: items(100, 0) })),
        { call_id: 'last', name: 'echo', arguments: { text: 'after' } },
      ];
      const results = await dispatch(gw, 'batch', calls);
      expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'error', 'error', 'error', 'error', 'ok']);
      expect(results[3].content).toBe("`wide` was not run: this request's earlier calls used up the validation work one request may take. Send this call again in another request.");
      // The last echo's 2 values still fit.
      expect(counter.runs).toBe(4);
      const [again] = await dispatch(gw, 'next', [{ call_id: 'x', name: 'wide', arguments: items(100, 0) }]);
      expect(again.status).toBe('ok');
    });

    it('the validate route answers the same refusal, 200, never running the engine', async () => {
      const { gw } = await gateway();
      const response = await gw.request('/v1/tools/wide/validate', { key: 'agent', json: { arguments: items(10_000, 5000) } });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { valid: boolean; error: { code: string; details: Record<string, unknown> } };
      expect(answer).toMatchObject({ valid: false, error: { code: 'invalid_arguments', details: { reason: 'validation_budget_spent', values: 10_002 } } });
    });
  });
}

describe('publishing a schema that names too many properties', () => {
  it('answers 400 with the count and the limit: ajv writes code for each name (20,000 took 3 s to compile)', async () => {
    const gw = await testGateway([], keys);
    const nested = { type: 'object', properties: { a: { type: 'object', properties: names(600) }, b: { type: 'object', dependentRequired: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`d${i}`, ['a']])) } } };
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: baseManifest({ version: '2', tools: [{ name: 'big', executor: { kind: 'builtin', name: 'echo' }, input_schema: nested }] }) });
    expect(response.status).toBe(400);
    expect((await response.json()).error.problems).toEqual([
      { path: '$.tools[0].input_schema', message: 'the schema names 1,102 properties (in properties, dependentRequired and dependencies, over all its subschemas), more than the limit of 1,000: split the tool, or take open-ended keys with additionalProperties or patternProperties' },
    ]);
  });
});
