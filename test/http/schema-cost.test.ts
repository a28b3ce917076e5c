/**
 * Exponential schemas as attacks through the HTTP routes (security review: a tenant admin's
 * `$ref`/anyOf chain made one wrong call cost ajv 4 s and 419 MB at 21 levels, and the eval-free
 * engine 9 s even for a valid call). Publishing one is refused with the JSON path to fix; a
 * manifest stored before the check (put in the store directly) answers its calls at once with
 * an error, on both engines, while the tenant's other tools keep working. Outcomes, never time.
 */
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../../lib/validation/validator.ts';
import { NULLABLE_TAGS_SCHEMA, refChainSchema } from '../fixtures/validation-attacks.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const keys = { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme' } };
const chainTool = (name: string, levels: number) => ({ name, executor: { kind: 'builtin', name: 'echo' }, input_schema: refChainSchema(levels) });

/** What a Pydantic/OpenAPI generator emits: nullable unions, shared components referenced from many places. */
const ORDINARY_SCHEMA = {
  type: 'object',
  $defs: {
    Address: { type: 'object', properties: { city: { type: 'string' }, zip: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['city'] },
    Contact: { type: 'object', properties: { name: { type: 'string' }, home: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] }, work: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] } } },
  },
  properties: { text: { type: 'string' }, contacts: { type: 'array', items: { $ref: '#/$defs/Contact' } }, tags: (NULLABLE_TAGS_SCHEMA as { properties: { tags: object } }).properties.tags },
  required: ['text'],
};

describe('publishing a schema whose work multiplies', () => {
  it('answers 400 naming the spot to fix for the 12-, 21- and 40-level chains, and publishes nothing', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({ version: '2', tools: [chainTool('c12', 12), chainTool('c21', 21), chainTool('c40', 40)] });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    const problems = (await response.json()).error.problems as Array<{ path: string; message: string }>;
    expect(problems.map((p) => p.path)).toEqual(['$.tools[0].input_schema.$defs.d4', '$.tools[1].input_schema.$defs.d13', '$.tools[2].input_schema.$defs.d32']);
    for (const problem of problems) expect(problem.message).toMatch(/^validating one value against this subschema can apply 1,021 subschemas to a single value of the arguments, more than the limit of 1,000: .*; merge alternatives that lead to the same definitions, or flatten the chain$/);
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(404);
  });

  it('accepts ordinary schemas and the longest chain under the bound (7 levels)', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({ version: '2', tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: ORDINARY_SCHEMA }, chainTool('c7', 7)] });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(201);
  });
});

const ENGINES: Array<[string, () => SchemaValidator]> = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

for (const [engine, validator] of ENGINES) {
  describe(`${engine}: a chain stored before the check`, () => {
    // Seeded manifests go to the store as they are, without the publish check: as if stored by an earlier version.
    const stored = baseManifest({ tools: [chainTool('c21', 21), chainTool('c40', 40), { name: 'echo', executor: { kind: 'builtin' }, input_schema: ORDINARY_SCHEMA }] });

    const dispatch = async (gw: Awaited<ReturnType<typeof testGateway>>, calls: Array<{ call_id: string; name: string; arguments: object }>) => {
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls } });
      expect(response.status).toBe(200);
      return (await response.json()).results as Array<{ call_id: string; status: string; content: string }>;
    };

    it('answers its calls, right or wrong, with an error naming the spot; the other tools still work', async () => {
      // Before the bound, the wrong call at 21 levels cost ajv 4 s and 419 MB, and the 40-level one would not end.
      const gw = await testGateway([stored], keys, { validator: validator() });
      const results = await dispatch(gw, [
        { call_id: 'wrong21', name: 'c21', arguments: { x: 1 } },
        { call_id: 'right21', name: 'c21', arguments: { x: 'a' } },
        { call_id: 'wrong40', name: 'c40', arguments: { x: 1 } },
        { call_id: 'echo', name: 'echo', arguments: { text: 'hi', contacts: [{ name: 'a', home: null, work: { city: 'b' } }], tags: ['x', null] } },
      ]);
      expect(results.map((r) => [r.call_id, r.status])).toEqual([['wrong21', 'error'], ['right21', 'error'], ['wrong40', 'error'], ['echo', 'ok']]);
      expect(results[0].content).toMatch(/^Tool `c21` has an invalid input schema: \$defs\.d13: validating one value against this subschema can apply 1,021 subschemas/);
      expect(results[2].content).toMatch(/^Tool `c40` has an invalid input schema: \$defs\.d32: /);
    });
  });
}
