import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { TIER_UP_AFTER_CALLS, tieredValidator } from '../../lib/validation/tiered.ts';
import { InvalidSchemaError, type CompiledSchema, type ValidationOutcome } from '../../lib/validation/validator.ts';
import type { JsonSchema } from '../../lib/registry/json.ts';

const SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
    limit: { type: 'integer', minimum: 1, maximum: 10 },
    mode: { enum: ['fast', 'full'] },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    when: { type: 'string', format: 'date-time' },
  },
  required: ['text'],
  additionalProperties: false,
} as JsonSchema;

const INPUTS: unknown[] = [
  { text: 'hello' },
  { text: 'x' },
  { text: 'Hello1', limit: 0, mode: 'slow' },
  { text: 'ok', tags: ['a', 'a'], when: 'yesterday' },
  { limit: 11, extra: true },
  { text: 'fine', constructor: 1 },
  'not an object',
];

/** The engines list the same problems, each in its own order (ajv by keyword, the eval-free engine by property). */
function sorted(outcome: ValidationOutcome): ValidationOutcome {
  if (outcome.valid) return outcome;
  const key = (v: { pointer: string; keyword: string }) => `${v.pointer} ${v.keyword}`;
  return { ...outcome, violations: [...outcome.violations].sort((a, b) => key(a).localeCompare(key(b))) };
}

describe('tiered validation on ajv (a schema stored as checked)', () => {
  it('answers every call, before and after ajv takes over, with the verdict and problems of ajv alone', () => {
    const alone = createAjvValidator({ tiered: false }).compile(SCHEMA, { checked: true });
    const tiered = createAjvValidator().compile(SCHEMA, { checked: true });
    for (let round = 0; round <= TIER_UP_AFTER_CALLS / INPUTS.length + 1; round++) {
      for (const input of INPUTS) expect(sorted(tiered(input))).toEqual(sorted(alone(input)));
    }
  });

  it('compiles the generated validator once, on the call after TIER_UP_AFTER_CALLS, and uses it from then on', () => {
    const answers: string[] = [];
    let compiles = 0;
    const interpreted: CompiledSchema = () => (answers.push('interpreted'), { valid: true });
    const generated: CompiledSchema = () => (answers.push('generated'), { valid: true });
    const validate = tieredValidator(interpreted, () => (compiles++, generated), 3);
    for (let i = 0; i < 6; i++) validate({});
    expect(answers).toEqual(['interpreted', 'interpreted', 'interpreted', 'generated', 'generated', 'generated']);
    expect(compiles).toBe(1);
  });

  it('keeps the eval-free validator when ajv refuses the schema, and does not retry on every call', () => {
    let compiles = 0;
    const interpreted: CompiledSchema = (data) => (data === 'bad' ? { valid: false, violations: [], omitted: 0 } as never : { valid: true });
    const validate = tieredValidator(interpreted, () => {
      compiles++;
      throw new InvalidSchemaError('ajv says no');
    }, 1);
    for (let i = 0; i < 5; i++) expect(validate('good')).toEqual({ valid: true });
    expect(validate('bad').valid).toBe(false);
    expect(compiles).toBe(1);
  });

  it('does not tier a schema that was not checked: the lint still refuses it at compile', () => {
    const broken = { type: 'object', properties: { a: { $ref: 'https://evil.example/schema' } } } as JsonSchema;
    expect(() => createAjvValidator().compile(broken)).toThrow(InvalidSchemaError);
  });
});
