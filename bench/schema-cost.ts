/**
 * The schema cost bound (lib/validation/schema-cost.ts): what the analysis costs at publish and
 * compile time on a 1 MiB manifest's worth of schemas (ordinary ones, and the analysis's own
 * worst case: a recursion that needs a pass per level of nesting), and what the worst schemas it
 * accepts cost each engine per call: the reviewer's $ref/anyOf chain at 7 levels (510
 * applications per value) and an anyOf of 999 branches (1,000, the limit).
 */
import type { JsonSchema } from '../lib/registry/json.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import { schemaCostProblem, schemaWork } from '../lib/validation/schema-cost.ts';
import { REQUEST_VALIDATION_WORK, validationWork } from '../lib/validation/work-budget.ts';
import { lintSchema } from '../lib/validation/schema-lint.ts';
import type { SchemaValidator } from '../lib/validation/validator.ts';
import { refChainSchema } from '../test/fixtures/validation-attacks.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { median } from './stats.ts';

const MIB = 1024 * 1024;
const RUNS = 5;

/** An OpenAPI-style tool schema: shared components, nullable unions, a discriminated oneOf, a recursive tree. */
function ordinarySchema(i: number): JsonSchema {
  return {
    type: 'object',
    $defs: {
      Address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { anyOf: [{ type: 'string', pattern: '^[0-9]{5}$' }, { type: 'null' }] } }, required: ['city'] },
      Person: { type: 'object', properties: { name: { type: 'string', description: `Name ${i}` }, home: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] }, work: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] } } },
      Cat: { allOf: [{ $ref: '#/$defs/Pet' }, { properties: { kind: { const: 'cat' }, meows: { type: 'boolean' } } }] },
      Dog: { allOf: [{ $ref: '#/$defs/Pet' }, { properties: { kind: { const: 'dog' }, barks: { type: 'boolean' } } }] },
      Pet: { type: 'object', properties: { kind: { enum: ['cat', 'dog'] }, owner: { $ref: '#/$defs/Person' } }, required: ['kind'] },
      Folder: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Folder' } } } },
    },
    properties: {
      [`owner_${i}`]: { $ref: '#/$defs/Person' },
      pets: { type: 'array', items: { oneOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }] } },
      tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      root: { $ref: '#/$defs/Folder' },
    },
    required: ['pets'],
  };
}

/**
 * One 1 MiB schema whose recursion grows with depth (at nesting n, `b` applies n times): it
 * never settles, so the analysis makes its full 66 passes; padded with array items to the size.
 */
function slowestSchema(bytes: number): JsonSchema {
  // Items rather than properties: a schema names at most 1,000 properties.
  const prefixItems: JsonSchema[] = [];
  const schema = {
    $defs: { a: { type: 'array', prefixItems, items: { anyOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/b' }] } }, b: { type: 'array', items: { $ref: '#/$defs/b' } } },
    $ref: '#/$defs/a',
  };
  while (JSON.stringify(prefixItems).length < bytes) {
    for (let k = 0; k < 1000; k++) prefixItems.push({ type: 'array', prefixItems: [{ $ref: '#/$defs/a' }] });
  }
  return schema;
}

function timed(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return round(median(times));
}

function measureAnalysis(): Figures {
  const schemas: JsonSchema[] = [];
  while (JSON.stringify(schemas).length < MIB) schemas.push(ordinarySchema(schemas.length));
  const slowest = slowestSchema(MIB);
  return {
    ordinary_schemas: schemas.length,
    ordinary_bytes: JSON.stringify(schemas).length,
    ordinary_refused: schemas.filter((s) => schemaCostProblem(s)).length,
    ordinary_cost_analysis_ms: timed(() => schemas.forEach((s) => schemaCostProblem(s))),
    // The whole lint (patterns, refs, ...) including the analysis, for scale.
    ordinary_whole_lint_ms: timed(() => schemas.forEach((s) => lintSchema(s))),
    slowest_bytes: JSON.stringify(slowest).length,
    slowest_refused: schemaCostProblem(slowest)?.message.slice(0, 60) ?? 'no',
    slowest_cost_analysis_ms: timed(() => schemaCostProblem(slowest)),
    chain_40_cost_analysis_ms: timed(() => schemaCostProblem(refChainSchema(40))),
  };
}

const WIDEST_SCHEMA: JsonSchema = { type: 'object', properties: { x: { anyOf: Array.from({ length: 999 }, (_, i) => ({ const: i })) } } };
const overItems = (schema: JsonSchema) => ({ ...(schema as object), properties: { x: { type: 'array', items: (schema as { properties: { x: JsonSchema } }).properties.x } } }) as JsonSchema;

/**
 * The worst accepted schemas, one call: valid, wrong, and the most wrong array items one request's
 * validation budget admits (REQUEST_VALIDATION_WORK over the schema's figure per value): the
 * longest a request can make the engine run.
 */
function measureWorstAccepted(engine: string, make: () => SchemaValidator): Figures {
  const figures: Figures = {};
  for (const [name, schema] of [['chain_7', refChainSchema(7)], ['anyof_999', WIDEST_SCHEMA]] as const) {
    const one = make().compile(schema);
    const itemsSchema = overItems(schema);
    const items = make().compile(itemsSchema);
    const { root, inside } = schemaWork(itemsSchema);
    const admitted = Math.floor((REQUEST_VALIDATION_WORK - root) / inside) - 1;
    const args = { x: Array<boolean>(admitted).fill(true) };
    if (validationWork(itemsSchema, args).work > REQUEST_VALIDATION_WORK) throw new Error('the bench admits more than a request may');
    Object.assign(figures, {
      [`${engine}_${name}_valid_call_ms`]: timed(() => one({ x: 'a' })),
      [`${engine}_${name}_wrong_call_ms`]: timed(() => one({ x: true })),
      [`${engine}_${name}_request_budget_wrong_items`]: admitted,
      [`${engine}_${name}_request_budget_wrong_items_ms`]: timed(() => items(args)),
    });
  }
  return figures;
}

export const schemaCostBench: BenchModule = {
  name: 'schema-cost',
  title: 'The schema cost bound: analysis time on 1 MiB of schemas, and the worst accepted schema (a 7-level $ref/anyOf chain, a 999-branch anyOf) per call and per request (its validation budget)',
  async run() {
    progress('schema-cost: analysis');
    const figures = measureAnalysis();
    for (const [engine, make] of [['ajv', createAjvValidator], ['cfworker', createCfworkerValidator]] as const) {
      progress(`schema-cost: ${engine} worst accepted schema`);
      Object.assign(figures, measureWorstAccepted(engine, make));
    }
    return figures;
  },
};
