/**
 * The schema cost bound as attacks (security review: "a tenant's schema can make the validation
 * engines do exponential work"): a chain of `$ref`s to anyOf alternatives that lead to the same
 * next level, a recursion whose alternatives multiply per level of the arguments, a schema that
 * applies itself forever; each refused with the path of the spot to fix, on both engines'
 * compile(). Ordinary schemas (zod's and Pydantic's unions, OpenAPI-style nesting, recursive
 * trees, the official test suite's) pass. Figures are sizes and outcomes, never time.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { MAX_SCHEMA_APPLICATIONS, MAX_SCHEMA_NESTING, MAX_SUBSCHEMAS, MAX_WHOLE_VALUE_CHECKS, schemaCostProblem } from '../../lib/validation/schema-cost.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import { InvalidSchemaError, type SchemaValidator } from '../../lib/validation/validator.ts';
import { corpusExists, loadSuite } from '../../scripts/conformance-lib.ts';
import { NULLABLE_TAGS_SCHEMA, refChainSchema } from '../fixtures/validation-attacks.ts';

const ENGINES: [string, () => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

/** The smallest limit a schema passes: its figure (the most applications at one value). */
function figureOf(schema: unknown): number {
  let low = 1;
  let high = MAX_SCHEMA_APPLICATIONS;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (schemaCostProblem(schema, mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Each level an anyOf of two objects whose `x` refers to the next level: multiplies per level of the arguments' nesting. */
function nestedChainSchema(levels: number): JsonSchema {
  const $defs: Record<string, JsonSchema> = {};
  const next = (i: number) => ({ type: 'object', properties: { x: { $ref: `#/$defs/d${i + 1}` } } });
  for (let i = 0; i < levels; i++) $defs[`d${i}`] = { anyOf: [next(i), next(i)] };
  $defs[`d${levels}`] = { type: 'string' };
  return { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs };
}

describe('the reviewer\'s $ref/anyOf chain', () => {
  it('counts every path: about 2^(levels + 2) applications, so 7 levels pass and 8 do not', () => {
    expect(figureOf(refChainSchema(4))).toBe(62);
    expect(figureOf(refChainSchema(7))).toBe(510);
    expect(schemaCostProblem(refChainSchema(7))).toBeUndefined();
    expect(schemaCostProblem(refChainSchema(8))?.path).toBe('$defs.d0');
  });

  it('names the smallest subschema over the limit, with its count and what to change, at 12, 21 and 40 levels', () => {
    for (const [levels, path] of [[12, '$defs.d4'], [21, '$defs.d13'], [40, '$defs.d32']] as const) {
      expect(schemaCostProblem(refChainSchema(levels))).toEqual({
        path,
        message: expect.stringMatching(/^validating one value against this subschema can apply 1,021 subschemas to a single value of the arguments, more than the limit of 1,000: .*alternatives that refer to the same definitions multiply level by level; merge alternatives/),
      });
    }
  });

  it('multiplies across levels of the arguments too (each level one property deeper)', () => {
    expect(schemaCostProblem(nestedChainSchema(8))).toBeUndefined();
    expect(schemaCostProblem(nestedChainSchema(40))?.path).toBe('$defs.d31');
  });

  it('counts alternatives at every applicator: oneOf, allOf, if/then/else, not, dependentSchemas', () => {
    const chain = (wrap: (ref: JsonSchema) => JsonSchema) => {
      const $defs: Record<string, JsonSchema> = { d20: { type: 'string' } };
      for (let i = 0; i < 20; i++) $defs[`d${i}`] = wrap({ $ref: `#/$defs/d${i + 1}` });
      return { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs };
    };
    const shapes: Array<(ref: JsonSchema) => JsonSchema> = [
      (ref) => ({ oneOf: [ref, ref] }),
      (ref) => ({ allOf: [ref, ref] }),
      (ref) => ({ if: ref, then: ref }),
      (ref) => ({ not: ref, else: ref }),
      (ref) => ({ dependentSchemas: { a: ref, b: ref } }),
      (ref) => ({ $ref: (ref as { $ref: string }).$ref, anyOf: [ref] }),
    ];
    for (const shape of shapes) expect(schemaCostProblem(chain(shape))?.message).toMatch(/more than the limit of 1,000/);
  });

  for (const [engine, make] of ENGINES) {
    it(`${engine}: compile() refuses it, so a schema stored before the check is never run`, () => {
      expect(() => make().compile(refChainSchema(21))).toThrow(InvalidSchemaError);
      expect(() => make().compile(refChainSchema(21))).toThrow(/^\$defs\.d13: validating one value against this subschema can apply 1,021 subschemas/);
      expect(make().check(refChainSchema(40))).toEqual([{ path: '$defs.d32', message: expect.stringContaining('more than the limit of 1,000') }]);
    });
  }
});

describe('recursion', () => {
  it('refuses a schema that applies itself to the same value (no properties or items in between)', () => {
    for (const schema of [{ anyOf: [{ $ref: '#' }, { type: 'string' }] }, { $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { not: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' }]) {
      expect(schemaCostProblem(schema)?.message).toMatch(/^this subschema applies itself again to the same value .* validation would never end; make each recursion step go into a property or an item$/);
    }
  });

  it('refuses a recursion whose alternatives reach it twice per level of the arguments (2^depth)', () => {
    const tree = { type: 'object', properties: { x: { anyOf: [{ $ref: '#' }, { $ref: '#' }] } } };
    expect(schemaCostProblem(tree)).toEqual({ path: 'properties.x', message: expect.stringContaining('a recursive $ref whose alternatives reach it again more than once per level') });
    // A property and a pattern both applying the root to the same property also doubles per level.
    const twice = { type: 'object', properties: { x: { $ref: '#' } }, patternProperties: { '^x$': { $ref: '#' } } };
    expect(schemaCostProblem(twice)?.message).toContain('more than the limit of 1,000');
    // additionalProperties never applies to a property `properties` names: each level applies the root once.
    expect(schemaCostProblem({ type: 'object', properties: { x: { $ref: '#' } }, additionalProperties: { $ref: '#' } })).toBeUndefined();
    expect(schemaCostProblem({ type: 'array', prefixItems: [{ $ref: '#' }], items: { $ref: '#' } })).toBeUndefined();
  });

  it('accepts recursion that applies each level once: trees, JSON values, linked lists', () => {
    const jsonValue = {
      $defs: { value: { anyOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array', items: { $ref: '#/$defs/value' } }, { type: 'object', additionalProperties: { $ref: '#/$defs/value' } }] } },
      type: 'object',
      properties: { data: { $ref: '#/$defs/value' } },
    };
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    const list = { $defs: { node: { type: ['object', 'null'], properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/node' } } } }, type: 'object', properties: { head: { $ref: '#/$defs/node' } } };
    for (const schema of [jsonValue, tree, list]) expect(schemaCostProblem(schema)).toBeUndefined();
    expect(figureOf(jsonValue)).toBe(5);
    expect(figureOf(tree)).toBe(2);
  });

  it('bounds a recursion that grows with depth (not per level) by the deepest arguments accepted (64 levels)', () => {
    // At nesting n, `a` applies once and `b` up to n times: bounded because arguments nest at most 64 levels.
    const growing = { $defs: { a: { type: 'object', additionalProperties: { anyOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/b' }] } }, b: { type: 'object', additionalProperties: { $ref: '#/$defs/b' } } }, $ref: '#/$defs/a' };
    expect(schemaCostProblem(growing)).toBeUndefined();
    expect(figureOf(growing)).toBeGreaterThan(64);
  });
});

describe('limits of the analysis itself', () => {
  it(`refuses subschemas nested more than ${MAX_SCHEMA_NESTING} deep (the analysis recurses; no arguments need it)`, () => {
    // A $ref chain that long holds more subschemas than a schema may (2,000); nesting holds one a level.
    let nested: JsonSchema = { type: 'string' };
    for (let i = 0; i < 1100; i++) nested = { type: 'array', items: nested };
    expect(schemaCostProblem(nested)?.message).toMatch(/more than 1,?000 levels deep/);
    const $defs: Record<string, JsonSchema> = { d1500: { type: 'string' } };
    for (let i = 0; i < 1500; i++) $defs[`d${i}`] = { type: 'array', items: { $ref: `#/$defs/d${i + 1}` } };
    expect(schemaCostProblem({ $ref: '#/$defs/d0', $defs })?.message).toMatch(/^the schema holds 3,00\d subschemas, more than the limit of 2,000/);
  });

  it('stays linear on wide schemas: 100,000 items, 100,000 properties and a 100,000-branch anyOf of shared refs', () => {
    // One subschema object used 100,000 times: one node (a schema holds at most 2,000), 100,000 edges.
    const shared = { $ref: '#/$defs/shared' };
    const prefixItems = Array<JsonSchema>(100_000).fill(shared);
    expect(schemaCostProblem({ type: 'array', prefixItems, $defs: { shared: { type: 'string' } } })).toBeUndefined();
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 100_000; i++) properties[`p${i}`] = shared;
    expect(schemaCostProblem({ type: 'object', properties, $defs: { shared: { type: 'string' } } })?.message).toContain('names 100,000 properties');
    const branches = Array<JsonSchema>(100_000).fill(shared);
    expect(schemaCostProblem({ anyOf: branches, $defs: { shared: { type: 'string' } } })?.message).toContain('can apply 200,001 subschemas');
  });

  it('ignores what no argument reaches, and what is not a schema (the lint reports that)', () => {
    expect(schemaCostProblem({ type: 'object', $defs: (refChainSchema(40) as { $defs: JsonSchema }).$defs })).toBeUndefined();
    expect(schemaCostProblem({ anyOf: 'x', properties: [1], items: [null, true], $ref: '#/nowhere' })).toBeUndefined();
    expect(schemaCostProblem(true)).toBeUndefined();
  });
});

describe('ordinary schemas pass', () => {
  it('Pydantic-style nullable unions and OpenAPI-style nesting with shared components', () => {
    const address = { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } }, required: ['street', 'city'] };
    const person = { type: 'object', properties: { name: { type: 'string' }, home: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] }, work: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] } }, required: ['name'] };
    const openapi = {
      type: 'object',
      $defs: { Address: address, Person: person, Pet: { oneOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }] }, Cat: { allOf: [{ $ref: '#/$defs/Base' }, { properties: { meows: { type: 'boolean' } } }] }, Dog: { allOf: [{ $ref: '#/$defs/Base' }, { properties: { barks: { type: 'boolean' } } }] }, Base: { type: 'object', properties: { kind: { enum: ['cat', 'dog'] }, owner: { $ref: '#/$defs/Person' } }, required: ['kind'] } },
      properties: { owner: { $ref: '#/$defs/Person' }, pets: { type: 'array', items: { $ref: '#/$defs/Pet' } }, tags: NULLABLE_TAGS_SCHEMA },
    };
    expect(lintSchema(openapi)).toEqual([]);
    expect(figureOf(openapi)).toBeLessThan(100);
  });

  it('what zod emits for unions, nullable fields, discriminated unions and recursive types', () => {
    const category: z.ZodType = z.lazy(() => z.object({ name: z.string(), subcategories: z.array(category) }));
    const action = z.discriminatedUnion('type', [
      z.object({ type: z.literal('create'), name: z.string(), tags: z.array(z.string().nullable()).optional() }),
      z.object({ type: z.literal('update'), id: z.number().int(), patch: z.record(z.string(), z.union([z.string(), z.number(), z.null()])) }),
      z.object({ type: z.literal('move'), id: z.number().int(), to: category }),
    ]);
    const schema = z.toJSONSchema(z.object({ actions: z.array(action), dry_run: z.boolean().nullable(), root: category }), { target: 'draft-2020-12' });
    expect(lintSchema(schema)).toEqual([]);
    expect(figureOf(schema)).toBeLessThan(100);
  });

  it.skipIf(!corpusExists())('every schema of the official JSON-Schema-Test-Suite (draft 2020-12)', () => {
    const figures = loadSuite().flatMap((file) => file.groups.map((group) => ({ group: `${file.keyword} / ${group.description}`, problem: schemaCostProblem(group.schema) })));
    expect(figures.length).toBeGreaterThan(400);
    expect(figures.filter((f) => f.problem)).toEqual([]);
  });
});

describe('checks that read the whole value, and the subschemas a schema holds', () => {
  // The second review's attacks: each check costs time growing with the value, which the request's
  // budget does not count, so many of them at one value multiplied it (999 × minProperties kept
  // both engines 21 s on one 90,000-key object, 999 × minLength 5 s on a 1 MB string).
  it(`refuses more than ${MAX_WHOLE_VALUE_CHECKS} at one value, counted per path`, () => {
    for (const check of [{ minProperties: 1 }, { maxProperties: 1e9 }, { minLength: 1 }, { maxLength: 1e7 }, { format: 'email' }, { pattern: '^a' }, { uniqueItems: true }, { const: [0, 0] }, { enum: [{ a: 1 }] }]) {
      expect(schemaCostProblem({ allOf: Array(16).fill(check) })).toBeUndefined();
      expect(schemaCostProblem({ allOf: Array(17).fill(check) })?.message).toMatch(/^validating one value against this subschema can run 17 checks that read the whole value .* more than the limit of 16/);
    }
    const sharedConst = { $defs: { c: { const: Array(2400).fill(0) } }, allOf: Array(499).fill({ $ref: '#/$defs/c' }) };
    expect(schemaCostProblem(sharedConst)?.message).toContain('can run 499 checks');
    // Inside a property, the path says where.
    expect(schemaCostProblem({ type: 'object', properties: { s: { anyOf: Array(20).fill({ type: 'string', maxLength: 9 }) } } })?.path).toBe('properties.s');
  });

  it('accepts what ordinary schemas do: a few checks on a string, titled choices of scalar consts, nullable unions', () => {
    expect(MAX_WHOLE_VALUE_CHECKS).toBe(16);
    const titled = { oneOf: Array.from({ length: 500 }, (_, i) => ({ const: `choice-${i}`, title: `Choice ${i}` })) };
    const string = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z]+$', format: 'hostname' };
    const nullable = { anyOf: [{ type: 'string', maxLength: 20, format: 'date' }, { type: 'null' }] };
    expect(schemaCostProblem({ type: 'object', properties: { titled, string, nullable, e: { enum: ['a', 'b', 'c'] } } })).toBeUndefined();
  });

  it(`refuses a schema of more than ${MAX_SUBSCHEMAS} subschemas (ajv compiled 30,000 prefixItems in 8 s), counting a shared one once`, () => {
    const distinct = { type: 'array', prefixItems: Array.from({ length: 30_000 }, () => ({ type: 'string', minLength: 1 })) };
    expect(schemaCostProblem(distinct)).toEqual({ path: '', message: 'the schema holds 30,001 subschemas, more than the limit of 2,000: split the tool, or share repeated parts through $defs and $ref' });
    const item = { type: 'string', minLength: 1 };
    expect(schemaCostProblem({ type: 'array', prefixItems: Array(30_000).fill(item) })).toBeUndefined();
    expect(schemaCostProblem({ type: 'array', prefixItems: Array.from({ length: 1_999 }, () => ({ type: 'string' })) })).toBeUndefined();
  });
});
