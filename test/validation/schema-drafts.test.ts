/**
 * `$schema` drafts on both engines (issue 11: servers built on the official MCP SDK publish
 * draft-07 schemas, and ajv threw `no schema with key or ref "http://json-schema.org/draft-07/schema#"`
 * on a tool's first call). Each draft is validated by its own rules, alike on both engines; an
 * unknown `$schema` is a schema problem with its path; and no older draft's keyword lets a schema
 * past a bound or a pattern check that its 2020-12 form hits (the attacks at the end).
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { MAX_PROPERTY_NAMES, MAX_SCHEMA_APPLICATIONS, MAX_WHOLE_VALUE_CHECKS } from '../../lib/validation/schema-cost.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import { InvalidSchemaError, type SchemaValidator } from '../../lib/validation/validator.ts';
import { validationWork } from '../../lib/validation/work-budget.ts';

const ENGINES: Array<[string, () => SchemaValidator]> = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_06 = 'http://json-schema.org/draft-06/schema#';
const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** What the official MCP TypeScript SDK (zod-to-json-schema) publishes for `{ a: number, b: number }`. */
const MCP_SDK_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number', description: 'Second number' } },
  required: ['a', 'b'],
  additionalProperties: false,
  $schema: DRAFT_07,
};

/** Each case: a schema, then arguments with the verdict its draft gives them. */
const DRAFT_CASES: Array<{ name: string; schema: Record<string, unknown>; verdicts: Array<[unknown, boolean]> }> = [
  { name: 'draft-07 from the MCP SDK', schema: MCP_SDK_SCHEMA, verdicts: [[{ a: 1, b: 2 }, true], [{ a: 1 }, false], [{ a: 1, b: 2, c: 3 }, false]] },
  {
    name: 'draft-07 tuple items and additionalItems',
    schema: { $schema: DRAFT_07, type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } } },
    verdicts: [[{ pair: ['x', 1] }, true], [{ pair: [1, 'x'] }, false], [{ pair: ['x', 1, 2] }, false]],
  },
  {
    name: 'draft-07 dependencies, both forms',
    schema: { $schema: DRAFT_07, type: 'object', dependencies: { card: ['billing'], coupon: { required: ['code'] } } },
    verdicts: [[{ card: 1, billing: 1 }, true], [{ card: 1 }, false], [{ coupon: 1 }, false], [{ coupon: 1, code: 'x' }, true]],
  },
  {
    name: 'draft-07 $ref ignores its siblings, and later drafts\' keywords are not draft-07\'s',
    schema: {
      $schema: DRAFT_07,
      type: 'object',
      properties: { a: { $ref: '#/definitions/s', maxLength: 1 }, t: { type: 'array', prefixItems: [{ type: 'string' }] } },
      definitions: { s: { type: 'string' } },
      dependentRequired: { a: ['b'] },
      unevaluatedProperties: false,
    },
    verdicts: [[{ a: 'long', t: [1], extra: 1 }, true], [{ a: 1 }, false]],
  },
  { name: 'draft-06 (as draft-07: exclusiveMinimum a number)', schema: { $schema: DRAFT_06, type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } }, verdicts: [[{ n: 1 }, true], [{ n: 0 }, false]] },
  {
    name: '2019-09: tuple items, dependentRequired, unevaluatedProperties; no prefixItems',
    schema: { $schema: DRAFT_2019, type: 'object', properties: { p: { items: [{ type: 'string' }], additionalItems: false }, q: { prefixItems: [{ type: 'string' }] } }, dependentRequired: { p: ['r'] }, unevaluatedProperties: false },
    verdicts: [[{ p: ['x'], r: 1, q: [1] }, false], [{ p: ['x'], q: [1] }, false], [{ p: ['x', 'y'] }, false], [{ q: [1] }, true]],
  },
  {
    name: '2020-12 declared (prefixItems, items after it)',
    schema: { $schema: DRAFT_2020, type: 'object', properties: { t: { prefixItems: [{ type: 'string' }], items: false } } },
    verdicts: [[{ t: ['x'] }, true], [{ t: [1] }, false], [{ t: ['x', 'y'] }, false]],
  },
  {
    name: 'no $schema: 2020-12, as before',
    schema: { type: 'object', properties: { t: { prefixItems: [{ type: 'string' }] } }, dependentRequired: { t: ['u'] } },
    verdicts: [[{ t: ['x'], u: 1 }, true], [{ t: [1], u: 1 }, false], [{ t: ['x'] }, false]],
  },
];

describe('the declared draft', () => {
  for (const [engine, make] of ENGINES) {
    it(`${engine}: the first call of a draft-07 schema from the MCP SDK succeeds, on a fresh engine, every spelling of its URI`, () => {
      for (const uri of [DRAFT_07, 'http://json-schema.org/draft-07/schema', 'https://json-schema.org/draft-07/schema#']) {
        const validate = make().compile({ ...MCP_SDK_SCHEMA, $schema: uri });
        expect([uri, validate({ a: 1, b: 2 }).valid]).toEqual([uri, true]);
      }
    });

    it(`${engine}: each draft is validated by its own rules`, () => {
      const validator = make();
      for (const { name, schema, verdicts } of DRAFT_CASES) {
        const validate = validator.compile(structuredClone(schema) as JsonSchema);
        expect([name, verdicts.map(([args]) => validate(args).valid)]).toEqual([name, verdicts.map(([, valid]) => valid)]);
      }
    });

    it(`${engine}: one engine keeps schemas of several drafts apart (a 2020-12 schema after a draft-07 one)`, () => {
      const validator = make();
      const tuple07 = validator.compile({ $schema: DRAFT_07, type: 'object', properties: { t: { items: [{ type: 'string' }] } } });
      const tuple2020 = validator.compile({ type: 'object', properties: { t: { prefixItems: [{ type: 'string' }] } } });
      expect([tuple07({ t: [1] }).valid, tuple2020({ t: [1] }).valid, tuple07({ t: ['x'] }).valid, tuple2020({ t: ['x'] }).valid]).toEqual([false, false, true, true]);
    });

    it(`${engine}: the messages name the argument in every draft`, () => {
      const outcome = make().compile(MCP_SDK_SCHEMA)({ a: 'one', b: 2 });
      expect(outcome.valid).toBe(false);
      if (!outcome.valid) expect(outcome.violations[0]).toMatchObject({ pointer: '/a', keyword: 'type', message: expect.stringContaining('`a`') });
    });

    it(`${engine}: an unknown $schema is refused as a schema problem, never ajv's missing-ref error`, () => {
      for (const uri of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-meta', 'http://json-schema.org/schema#', 42]) {
        const compile = () => make().compile({ $schema: uri, type: 'object' } as JsonSchema);
        expect(compile).toThrow(InvalidSchemaError);
        expect(compile).toThrow(/^\(root\)\.?\$schema: |^\$schema: /);
        expect(compile).not.toThrow(/no schema with key or ref/);
      }
    });
  }
});

describe('the lint', () => {
  it('names an unknown $schema with its path and what to declare instead', () => {
    expect(lintSchema({ $schema: 'https://example.com/my-meta', type: 'object' })).toEqual([
      { path: '$schema', message: expect.stringMatching(/^unknown JSON Schema draft "https:\/\/example.com\/my-meta": declare one of .*draft-07.*, or leave \$schema out for draft 2020-12$/) },
    ]);
    expect(lintSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toEqual([
      { path: '$schema', message: expect.stringMatching(/^draft-04 is not supported; declare draft-07 .* boolean exclusiveMinimum/) },
    ]);
  });

  it('reads array items by the draft: a tuple in draft-07 and 2019-09, a problem in 2020-12 (pointing to prefixItems)', () => {
    const tuple = (schema: Record<string, unknown>) => ({ ...schema, type: 'object', properties: { t: { items: [{ type: 'string' }] } } });
    expect(lintSchema(tuple({ $schema: DRAFT_07 }))).toEqual([]);
    expect(lintSchema(tuple({ $schema: DRAFT_2019 }))).toEqual([]);
    expect(lintSchema(tuple({}))).toEqual([{ path: 'properties.t.items', message: expect.stringContaining('for a tuple use prefixItems') }]);
  });

  it('refuses a subschema that switches drafts; the same draft again is harmless', () => {
    expect(lintSchema({ $schema: DRAFT_07, type: 'object', properties: { a: { $schema: DRAFT_2020 } } })).toEqual([{ path: 'properties.a.$schema', message: expect.stringContaining('cannot declare another draft') }]);
    expect(lintSchema({ $schema: DRAFT_07, type: 'object', properties: { a: { $schema: DRAFT_07 } } })).toEqual([]);
  });
});

/**
 * Older drafts spell subschemas differently: `items` as a list, `additionalItems`, `dependencies`
 * (a subschema or a list of names), `definitions`. Each attack is a bound its 2020-12 spelling
 * hits, written the draft-07 way: refused the same, on both engines' compile().
 */
describe('attacks through older drafts\' keywords', () => {
  const d7 = (schema: Record<string, unknown>) => ({ $schema: DRAFT_07, type: 'object', ...schema });

  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a catastrophic pattern inside a dependencies subschema', d7({ dependencies: { a: { properties: { b: { pattern: '^(a+)+$' } } } } }), /dependencies\.a\.properties\.b\.pattern/],
    ['a catastrophic patternProperties key inside a tuple item', d7({ properties: { t: { items: [{ patternProperties: { '(a|a)*$': {} } }] } } }), /properties\.t\.items\[0\]\.patternProperties/],
    ['a catastrophic pattern in additionalItems', d7({ properties: { t: { items: [{}], additionalItems: { pattern: '(x+x+)+y' } } } }), /properties\.t\.additionalItems\.pattern/],
    ['the reviewer\'s $ref/anyOf chain through definitions', chainOf((ref) => ({ anyOf: [ref, ref] })), /subschemas to a single value/],
    ['the chain as dependencies subschemas', chainOf((ref) => ({ dependencies: { a: ref, b: ref } })), new RegExp(`more than the limit of ${MAX_SCHEMA_APPLICATIONS.toLocaleString('en-US')}`)],
    ['the chain as tuple items', chainOf((ref) => ({ anyOf: [{ items: [ref, ref] }, { items: [ref, ref] }] }), true), /more than the limit/],
    [`${MAX_WHOLE_VALUE_CHECKS + 1} whole-value checks through dependencies subschemas`, d7({ properties: { s: { dependencies: Object.fromEntries(Array.from({ length: MAX_WHOLE_VALUE_CHECKS + 1 }, (_, i) => [`k${i}`, { minProperties: i }])) } } }), /checks that read the whole value/],
    [`${MAX_PROPERTY_NAMES + 1} property names as dependencies keys, as dependentRequired keys count`, d7({ dependencies: Object.fromEntries(Array.from({ length: MAX_PROPERTY_NAMES + 1 }, (_, i) => [`p${i}`, ['q']])) }), /names 1,001 properties/],
  ];

  for (const [name, schema, problem] of refusals) {
    it(`refuses ${name}`, () => {
      const clean = JSON.parse(JSON.stringify(schema)) as JsonSchema;
      const problems = lintSchema(clean);
      expect(problems.map((p) => `${p.path}: ${p.message}`).join('\n')).toMatch(problem);
      for (const [, make] of ENGINES) expect(() => make().compile(clean)).toThrow(InvalidSchemaError);
    });
  }

  it('weighs draft-07 dependencies lists in the request\'s validation work, as dependentRequired', () => {
    const names = Array.from({ length: 500 }, (_, i) => `p${i}`);
    const asDependencies = validationWork(d7({ dependencies: { a: names } }), { a: 1 }).work;
    const asDependentRequired = validationWork({ type: 'object', dependentRequired: { a: names } }, { a: 1 }).work;
    expect(asDependencies).toBe(asDependentRequired);
    expect(asDependencies).toBeGreaterThan(names.length);
  });

  it('still runs every draft\'s patterns on the linear-time matcher: a backtracking-prone argument answers at once', () => {
    // Accepted by the lint (not catastrophic) yet slow on a backtracking engine for a long non-match.
    // Quadratic on a backtracking engine: 50,000 letters and a "!" would take it seconds.
    const quadratic = '^[a-z]+[0-9]*[a-z]+$';
    const schema = d7({ dependencies: { a: { properties: { b: { pattern: quadratic } } } }, properties: { t: { items: [{ pattern: quadratic }] } } });
    for (const [, make] of ENGINES) {
      const validate = make().compile(schema);
      expect(validate({ a: 1, b: `${'a'.repeat(50_000)}!` }).valid).toBe(false);
      expect(validate({ t: [`${'a'.repeat(50_000)}!`] }).valid).toBe(false);
      expect(validate({ a: 1, b: 'abc1d', t: ['abc'] }).valid).toBe(true);
    }
  });
});

/** A draft-07 chain of 20 definitions, each applying the next twice through `wrap`: 2^20 paths. */
function chainOf(wrap: (ref: Record<string, unknown>) => Record<string, unknown>, intoItems = false): Record<string, unknown> {
  const definitions: Record<string, unknown> = { d20: { type: 'string' } };
  for (let i = 0; i < 20; i++) definitions[`d${i}`] = wrap({ $ref: `#/definitions/d${i + 1}` });
  const root = { $ref: '#/definitions/d0' };
  return { $schema: DRAFT_07, type: 'object', properties: { x: intoItems ? { items: [root] } : root }, definitions };
}
