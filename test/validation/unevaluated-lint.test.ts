/**
 * The lint refuses the unevaluatedItems/unevaluatedProperties shapes whose verdicts differ
 * between the engines (lib/validation/unevaluated-lint.ts), and `$ref`s into data; it keeps the
 * common ones, on which both engines agree. multipleOf is decided in exact decimals on both.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import { InvalidSchemaError } from '../../lib/validation/validator.ts';

const problemsOf = (schema: unknown) => lintSchema(schema).map((p) => `${p.path}: ${p.message}`);

/** Each engine's verdicts on the data (compiled with the lint on, as in the product). */
function verdicts(schema: JsonSchema, data: unknown[]): Record<string, boolean[]> {
  const ajv = createAjvValidator().compile(structuredClone(schema));
  const cfworker = createCfworkerValidator().compile(structuredClone(schema));
  return { ajv: data.map((d) => ajv(d).valid), cfworker: data.map((d) => cfworker(d).valid) };
}

/** [what, schema, data, the verdicts both engines must give]. */
const ACCEPTED: [string, JsonSchema, unknown[], boolean[]][] = [
  ['next to properties', { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false }, [{ a: 'x' }, { a: 'x', b: 1 }], [true, false]],
  ['with allOf and $ref', { $defs: { base: { properties: { id: { type: 'integer' } } } }, allOf: [{ $ref: '#/$defs/base' }, { properties: { name: {} } }], unevaluatedProperties: false }, [{ id: 1, name: 'n' }, { id: 1, other: 2 }], [true, false]],
  ['with anyOf branches', { anyOf: [{ properties: { a: { const: 1 } }, required: ['a'] }, { properties: { b: { const: 2 } }, required: ['b'] }], unevaluatedProperties: false }, [{ a: 1 }, { b: 2 }, { a: 2, b: 2 }, { a: 1, c: 3 }], [true, true, false, false]],
  ['with oneOf branches', { oneOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'string' } }, required: ['b'] }], unevaluatedProperties: false }, [{ a: 'x' }, { b: 'y' }, { a: 'x', z: 1 }], [true, true, false]],
  [
    'if/then/else on a declared discriminator',
    { properties: { kind: { enum: ['a', 'b'] } }, if: { properties: { kind: { const: 'a' } } }, then: { properties: { a: {} } }, else: { properties: { b: {} } }, unevaluatedProperties: false },
    [{ kind: 'a', a: 1 }, { kind: 'a', b: 1 }, { kind: 'b', b: 1 }, { kind: 'b', a: 1 }],
    [true, false, true, false],
  ],
  // With a then and no else both engines count the if's properties only when it passes.
  ['an if with only a then', { if: { properties: { foo: { const: 'x' } }, required: ['foo'] }, then: { properties: { bar: {} } }, unevaluatedProperties: false }, [{ foo: 'x', bar: 1 }, { foo: 'y' }, { foo: 'x', baz: 1 }], [true, false, false]],
  ['unevaluatedItems after prefixItems and allOf', { prefixItems: [{ type: 'string' }], allOf: [{ prefixItems: [true, { type: 'number' }] }], unevaluatedItems: false }, [['a', 1], ['a', 1, 2]], [true, false]],
];

describe('unevaluated*: what the lint keeps', () => {
  for (const [what, schema, data, expected] of ACCEPTED) {
    it(`${what}: accepted, and both engines agree`, () => {
      expect(problemsOf(schema)).toEqual([]);
      expect(verdicts(schema, data)).toEqual({ ajv: expected, cfworker: expected });
    });
  }
});

/** [what, schema, the path of the problem, a part of its message]. */
const REFUSED: [string, unknown, string, string][] = [
  ['contains next to unevaluatedItems', { contains: { type: 'string' }, unevaluatedItems: false }, 'unevaluatedItems', 'cannot be combined with contains (at contains)'],
  ['contains with minContains 0', { contains: { type: 'string' }, minContains: 0, unevaluatedItems: false }, 'unevaluatedItems', 'the engines disagree on which items contains marks as evaluated'],
  ['contains reached through a $ref', { $defs: { c: { contains: { const: 1 } } }, properties: { list: { $ref: '#/$defs/c', unevaluatedItems: false } } }, 'properties.list.unevaluatedItems', 'cannot be combined with contains (at $defs.c.contains)'],
  ['items inside an anyOf branch', { anyOf: [{ items: { type: 'string' } }, true], unevaluatedItems: { type: 'boolean' } }, 'unevaluatedItems', 'cannot see items evaluated by anyOf[0].items'],
  ['prefixItems inside a oneOf branch', { oneOf: [{ prefixItems: [{ type: 'string' }] }, { prefixItems: [{ type: 'number' }] }], unevaluatedItems: false }, 'unevaluatedItems', 'cannot see items evaluated by oneOf'],
  ['prefixItems inside an if', { if: { prefixItems: [{ const: 'a' }] }, then: { minItems: 1 }, unevaluatedItems: false }, 'unevaluatedItems', 'cannot see items evaluated by if.prefixItems'],
  ['an if without then or else evaluating an undeclared property', { if: { properties: { foo: { type: 'string' } } }, unevaluatedProperties: false }, 'unevaluatedProperties', 'the if at if evaluates "foo", not declared in properties next to unevaluatedProperties'],
  ['an if with an else evaluating an undeclared property', { if: { properties: { foo: { const: 'x' } }, required: ['foo'] }, then: { required: ['a'] }, else: { properties: { b: {} } }, unevaluatedProperties: false }, 'unevaluatedProperties', 'Declare it there too (e.g. "properties": {"foo": {}})'],
  ['patternProperties inside an if with an else', { if: { patternProperties: { foo: { type: 'string' } } }, else: { minProperties: 1 }, unevaluatedProperties: false }, 'unevaluatedProperties', 'cannot be combined with patternProperties inside an if (if.patternProperties)'],
  ['a $ref into examples', { examples: [{ type: 'string' }], $ref: '#/examples/0' }, '$ref', '"#/examples/0" points into examples, which holds data, not a schema'],
  ['a $ref into a property default', { properties: { a: { default: { type: 'string' } }, b: { $ref: '#/properties/a/default' } } }, 'properties.b.$ref', 'points into default'],
];

describe('unevaluated*: what the lint refuses, at its path', () => {
  for (const [what, schema, path, message] of REFUSED) {
    it(what, () => {
      const problems = lintSchema(schema).filter((p) => p.path === path);
      expect(problems.map((p) => p.message).join('\n')).toContain(message);
      // Both engines run the lint when compiling: neither takes the schema.
      expect(() => createAjvValidator().compile(schema as JsonSchema)).toThrow(InvalidSchemaError);
      expect(() => createCfworkerValidator().compile(schema as JsonSchema)).toThrow(InvalidSchemaError);
    });
  }

  it('a $ref to a property named like a data keyword still resolves', () => {
    const schema = { properties: { examples: { type: 'string' }, copy: { $ref: '#/properties/examples' } } };
    expect(problemsOf(schema)).toEqual([]);
    expect(verdicts(schema, [{ copy: 'x' }, { copy: 1 }])).toEqual({ ajv: [true, false], cfworker: [true, false] });
  });

  it('in draft-07, where unevaluated* is no keyword on either engine, the same shape is accepted', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', contains: { type: 'string' }, unevaluatedItems: false };
    expect(problemsOf(schema)).toEqual([]);
    expect(verdicts(schema as JsonSchema, [['a', 1]])).toEqual({ ajv: [true], cfworker: [true] });
  });

  it('a schema of many $refs and unevaluatedProperties is refused in bounded time, not walked without end', () => {
    // Every def reaches every other through allOf: 400 walks of 400 subschemas each.
    const names = Array.from({ length: 400 }, (_, i) => `d${i}`);
    const $defs = Object.fromEntries(names.map((n) => [n, { unevaluatedProperties: false, allOf: names.map((m) => ({ $ref: `#/$defs/${m}` })) }]));
    const messages = lintSchema({ $defs, $ref: '#/$defs/d0' }).map((p) => p.message);
    expect(messages).toContain('too many subschemas to check: simplify the schema (fewer $refs and unevaluatedItems/unevaluatedProperties)');
  });
});

describe('multipleOf: exact decimals on both engines', () => {
  const cases: [number, number, boolean][] = [
    [1e308, 0.5, true], // ajv's float division overflowed to Infinity: refused on Node, accepted on Workers
    [0.3, 0.1, true], // 0.3 / 0.1 is 2.9999999999999996 in floating point
    [4.5, 1.5, true],
    [0.35, 0.1, false],
    [7, 2, false],
    [1e-7, 1e-8, true],
  ];
  for (const [value, divisor, valid] of cases) {
    it(`${value} is ${valid ? '' : 'not '}a multiple of ${divisor}`, () => {
      const schema = { type: 'object', properties: { n: { type: 'number', multipleOf: divisor } } } as JsonSchema;
      expect(verdicts(schema, [{ n: value }])).toEqual({ ajv: [valid], cfworker: [valid] });
    });
  }

  it('says the same on both engines when it fails', () => {
    const schema = { type: 'object', properties: { n: { multipleOf: 0.1 } } } as JsonSchema;
    const [ajv, cfworker] = [createAjvValidator(), createCfworkerValidator()].map((engine) => engine.compile(schema)({ n: 0.35 }));
    const message = (o: typeof ajv) => (o.valid ? [] : o.violations.map((v) => v.message));
    expect(message(ajv)).toEqual(['`n` must be a multiple of 0.1, got 0.35']);
    expect(message(cfworker)).toEqual(message(ajv));
  });
});
