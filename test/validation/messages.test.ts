/**
 * What a model reads when its arguments are wrong, and what an operator reads when a schema
 * is broken: exact strings, and the same on both engines (Node runs ajv, Workers cfworker).
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { parseArguments } from '../../lib/validation/parse-arguments.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import { InvalidSchemaError, type SchemaValidator, type ValidationOutcome } from '../../lib/validation/validator.ts';

const ENGINES: [string, () => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

const toolSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 3 },
    mode: { enum: ['r', 'w'] },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    m: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
    target: { anyOf: [{ type: 'string' }, { type: 'integer' }, { $ref: '#/$defs/point' }] },
  },
  required: ['path'],
  additionalProperties: false,
  $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
};

const messagesOf = (outcome: ValidationOutcome) => (outcome.valid ? [] : outcome.violations.map((v) => v.message));

/** [what, schema, arguments, the messages a model reads]. */
const CASES: [string, JsonSchema, unknown, string[]][] = [
  ['type', toolSchema, { path: 5 }, ['`path` must be a string, got number 5']],
  ['required', toolSchema, {}, ['missing required argument `path`']],
  [
    'additionalProperties with the allowed list',
    toolSchema,
    { path: 'abc', extra: 1 },
    ['unexpected argument `extra` is not allowed (allowed: path, mode, code, email, tags, m, target)'],
  ],
  ['enum', toolSchema, { path: 'abc', mode: 'x' }, ['`mode` must be one of "r", "w", got "x"']],
  ['minLength', toolSchema, { path: 'a' }, ['`path` must be at least 3 characters long']],
  ['pattern', toolSchema, { path: 'abc', code: 'ab' }, ['`code` must match the pattern /^[A-Z]{3}$/, got string "ab"']],
  ['format email', toolSchema, { path: 'abc', email: 'nope' }, ['`email` must be a valid email, got string "nope"']],
  ['array item path', toolSchema, { path: 'abc', tags: ['a', 2] }, ['`tags[1]` must be a string, got number 2']],
  ['nested property path', toolSchema, { path: 'abc', m: { q: 1 } }, ['`m.q` must be a string, got number 1']],
  ['nested required', toolSchema, { path: 'abc', m: {} }, ['missing required property `m.q`']],
  ['nested additionalProperties', toolSchema, { path: 'abc', m: { q: 'x', z: 1 } }, ['unexpected property `m.z` is not allowed (allowed: q)']],
  // A failed anyOf is one summary, whether the branches' own failures come through a $ref or not.
  ['anyOf summary', toolSchema, { path: 'abc', target: true }, ['`target` must match one of: a string | an integer | point']],
  ['anyOf summary over a $ref branch', toolSchema, { path: 'abc', target: { y: 1 } }, ['`target` must match one of: a string | an integer | point']],
  ['several violations, in schema order', toolSchema, { path: 1, mode: 'x' }, ['`path` must be a string, got number 1', '`mode` must be one of "r", "w", got "x"']],
  ['not an object at all', toolSchema, 'str', ['`arguments` must be an object, got string "str"']],
  ['oneOf', { type: 'object', properties: { k: { oneOf: [{ const: 'a' }, { const: 'b' }] } } }, { k: 'c' }, ['`k` must match exactly one of: "a" | "b"']],
  ['dependentRequired', { type: 'object', dependentRequired: { a: ['b'] } }, { a: 1 }, ['missing required argument `b` when `a` is given']],
  [
    'propertyNames',
    { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
    { A: 1 },
    ['`arguments` has a property name "A" that must match the pattern /^[a-z]+$/, got string "A"'],
  ],
  [
    'items: false after prefixItems',
    { type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } },
    { p: ['a', 1, 2] },
    ['`p` must have at most 1 item'],
  ],
  [
    'contains',
    { type: 'object', properties: { p: { type: 'array', contains: { type: 'number' } } } },
    { p: ['a'] },
    ['`p` must contain at least one item of the expected shape'],
  ],
  ['false schema', { type: 'object', properties: { p: false } }, { p: 1 }, ['`p` is not allowed']],
  ['names that need quoting', { type: 'object', properties: { '50%': { type: 'string' }, 'a/b': { type: 'string' } } }, { '50%': 1, 'a/b': 2 }, ['`"50%"` must be a string, got number 1', '`"a/b"` must be a string, got number 2']],
  ['inherited names are not present', { type: 'object', required: ['constructor'] }, {}, ['missing required argument `constructor`']],
];

describe('violation messages', () => {
  for (const [what, schema, data, expected] of CASES) {
    it(`${what}: the same words on both engines`, () => {
      const outcomes = ENGINES.map(([, make]) => make().compile(schema)(data));
      for (const outcome of outcomes) expect(messagesOf(outcome)).toEqual(expected);
      // Pointers, keywords and details too, not just the sentences.
      expect(outcomes[1]).toEqual(outcomes[0]);
    });
  }

  it('points at the offending argument with a JSON pointer and gives the rule alone as detail', () => {
    for (const [, make] of ENGINES) {
      expect(make().compile(toolSchema)({ path: 'abc', tags: ['a', 2] })).toEqual({
        valid: false,
        violations: [{ pointer: '/tags/1', keyword: 'type', message: '`tags[1]` must be a string, got number 2', detail: 'must be a string, got number 2' }],
      });
    }
  });

  it('accepts valid arguments on both engines', () => {
    for (const [, make] of ENGINES) {
      expect(make().compile(toolSchema)({ path: 'abc', target: { x: 1 }, email: 'a@example.com', tags: [] })).toEqual({ valid: true });
    }
  });
});

describe('parseArguments', () => {
  it('passes an object through as it is', () => {
    const args = { a: 1, b: { c: [true] } };
    expect(parseArguments(args)).toEqual({ ok: true, args });
    expect((parseArguments(args) as { args: unknown }).args).toBe(args);
  });

  it('parses a JSON string (how OpenAI sends arguments)', () => {
    expect(parseArguments('{"city": "Lima", "days": 3}')).toEqual({ ok: true, args: { city: 'Lima', days: 3 } });
  });

  it('treats missing arguments as an empty object', () => {
    for (const raw of [undefined, null, '']) expect(parseArguments(raw)).toEqual({ ok: true, args: {} });
  });

  it('says where bad JSON breaks: position, line and column', () => {
    expect(parseArguments('{"a": 1,}')).toEqual({
      ok: false,
      message: 'arguments are not valid JSON: Expected double-quoted property name at position 8 (line 1, column 9). Send the arguments as one JSON object.',
      details: { position: 8, line: 1, column: 9 },
    });
    expect(parseArguments('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({
      message: "arguments are not valid JSON: Expected ',' or '}' after property value at position 13 (line 3, column 3). Send the arguments as one JSON object.",
      details: { position: 13, line: 3, column: 3 },
    });
  });

  it('finds the position where V8 does not name it (Python literals), without echoing the text', () => {
    expect(parseArguments('{\n  "path": "x",\n  "n": None\n}')).toEqual({
      ok: false,
      message: "arguments are not valid JSON: Unexpected token 'N' at position 24 (line 3, column 8). Send the arguments as one JSON object.",
      details: { position: 24, line: 3, column: 8 },
    });
    expect(parseArguments('{"a": 1.5, "b": True}')).toMatchObject({ details: { position: 16, line: 1, column: 17 } });
  });

  it('reports truncated JSON at its end', () => {
    expect(parseArguments('{"a": ')).toMatchObject({
      message: 'arguments are not valid JSON: Unexpected end of JSON input at position 6 (line 1, column 7). Send the arguments as one JSON object.',
    });
  });

  it('refuses JSON that is not an object', () => {
    expect(parseArguments('[1,2]')).toEqual({ ok: false, message: 'arguments must be a JSON object, got an array', details: {} });
    expect(parseArguments('"str"')).toEqual({ ok: false, message: 'arguments must be a JSON object, got string "str"', details: {} });
    expect(parseArguments('null')).toEqual({ ok: false, message: 'arguments must be a JSON object, got null', details: {} });
    expect(parseArguments(42)).toEqual({ ok: false, message: 'arguments must be a JSON object, got number 42', details: {} });
  });
});

describe('broken schemas', () => {
  const broken: JsonSchema = {
    type: 'object',
    required: 'a',
    properties: {
      a: { type: 'strin' },
      b: { type: 'string', pattern: '[' },
      c: { $ref: '#/$defs/missing' },
      d: { type: 'string', minLength: -1 },
      e: { enum: [] },
      f: { anyOf: [{ type: 'string' }, { type: 'nope' }] },
    },
  };
  const typeList = '(use one of string, number, integer, boolean, object, array, null)';

  it('lintSchema names every problem with its path', () => {
    expect(lintSchema(broken)).toEqual([
      { path: 'required', message: 'must be an array of property names' },
      { path: 'properties.a.type', message: `"strin" is not a JSON Schema type ${typeList}` },
      { path: 'properties.b.pattern', message: '"[" is not a valid regular expression' },
      { path: 'properties.c.$ref', message: 'cannot resolve "#/$defs/missing": tool schemas may only reference their own $defs' },
      { path: 'properties.d.minLength', message: 'must be a non-negative integer' },
      { path: 'properties.e.enum', message: 'must be a non-empty array of allowed values' },
      { path: 'properties.f.anyOf[1].type', message: `"nope" is not a JSON Schema type ${typeList}` },
    ]);
  });

  it('lintSchema refuses what the engines handle badly: dynamic refs, nested $id, a "__proto__" property', () => {
    // Parsed from text: an object literal's `__proto__` key would set the prototype instead.
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"tree":{"$dynamicRef":"#node"},"inner":{"$id":"https://x.example/inner","type":"string"}}}');
    expect(lintSchema(schema)).toEqual([
      { path: '', message: 'a property named "__proto__" is not allowed in tool schemas (JavaScript treats it specially)' },
      { path: 'properties.tree.$dynamicRef', message: '$dynamicRef is not supported in tool schemas; use $defs with "$ref": "#/$defs/..."' },
      { path: 'properties.inner.$id', message: 'nested $id is not supported in tool schemas; keep sub-schemas in $defs and reference them with "#/$defs/..."' },
    ]);
  });

  it('lintSchema accepts local refs, anchors and refs into documents the engine was given', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/a' }, b: { $ref: '#b' }, c: { $ref: 'https://schemas.example.com/common.json#/$defs/id' } },
      $defs: { a: { type: 'string' }, b: { $anchor: 'b', type: 'number' } },
    };
    expect(lintSchema(schema, { knownUris: ['https://schemas.example.com/common.json'] })).toEqual([]);
    expect(lintSchema(schema).map((p) => p.path)).toEqual(['properties.c.$ref']);
  });

  for (const [engine, make] of ENGINES) {
    it(`${engine}: compile throws InvalidSchemaError with the lint's paths`, () => {
      const compile = () => make().compile(broken);
      expect(compile).toThrow(InvalidSchemaError);
      expect(compile).toThrow(
        `required: must be an array of property names; properties.a.type: "strin" is not a JSON Schema type ${typeList}; ` +
          'properties.b.pattern: "[" is not a valid regular expression; ' +
          'properties.c.$ref: cannot resolve "#/$defs/missing": tool schemas may only reference their own $defs; ' +
          'properties.d.minLength: must be a non-negative integer; properties.e.enum: must be a non-empty array of allowed values; ' +
          `properties.f.anyOf[1].type: "nope" is not a JSON Schema type ${typeList}`,
      );
      expect(() => make().compile(5 as unknown as JsonSchema)).toThrow(new InvalidSchemaError('(root): must be a JSON Schema (an object or a boolean)'));
    });
  }
});
