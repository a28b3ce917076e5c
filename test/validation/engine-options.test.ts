/** The engine factories' options and compile-time behaviour, the same on both engines. */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { InvalidSchemaError, type EngineOptions, type SchemaValidator } from '../../lib/validation/validator.ts';

const ENGINES: [string, (options?: EngineOptions) => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

const COMMON = 'https://schemas.example.com/common.json';
const common: JsonSchema = {
  $defs: {
    id: { type: 'string', pattern: '^[a-z]+-\\d+$' },
    idOrNull: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/id' }] },
  },
};
const tool: JsonSchema = {
  type: 'object',
  properties: { id: { $ref: `${COMMON}#/$defs/id` }, parent: { $ref: `${COMMON}#/$defs/idOrNull` } },
};

describe.each(ENGINES)('%s engine', (_engine, make) => {
  it('resolves $refs into documents registered with `schemas`, and words violations as for local ones', () => {
    const validate = make({ schemas: [{ uri: COMMON, schema: common }] }).compile(tool);
    expect(validate({ id: 'job-1', parent: null })).toEqual({ valid: true });
    expect(validate({ id: 'job', parent: 5 })).toEqual({
      valid: false,
      violations: [
        { pointer: '/id', keyword: 'pattern', message: '`id` must match the pattern /^[a-z]+-\\d+$/, got string "job"', detail: 'must match the pattern /^[a-z]+-\\d+$/, got string "job"' },
        { pointer: '/parent', keyword: 'anyOf', message: '`parent` must match one of: null | id', detail: 'must match one of: null | id' },
      ],
    });
  });

  it('refuses a $ref to a document it was not given', () => {
    expect(() => make().compile(tool)).toThrow(InvalidSchemaError);
    expect(() => make().compile(tool)).toThrow(`properties.id.$ref: cannot resolve "${COMMON}#/$defs/id"`);
  });

  it('compiles the next manifest version of a schema with the same $id (a new object)', () => {
    const validator = make();
    const version = (max: number): JsonSchema => ({ $id: 'https://tools.example.com/search', type: 'object', properties: { n: { type: 'integer', maximum: max } } });
    const first = validator.compile(version(5));
    const second = validator.compile(version(10));
    expect(first({ n: 7 }).valid).toBe(false);
    expect(second({ n: 7 }).valid).toBe(true);
  });

  it('keeps recursive schemas ($ref to the root) working', () => {
    const tree: JsonSchema = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    const validate = make().compile(tree);
    expect(validate({ name: 'a', children: [{ name: 'b', children: [] }] })).toEqual({ valid: true });
    expect(validate({ children: [{ name: 1 }] })).toMatchObject({ valid: false, violations: [{ message: '`children[0].name` must be a string, got number 1' }] });
  });
});
