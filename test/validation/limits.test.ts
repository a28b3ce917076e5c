/**
 * Attacks on validation cost and size (security review, "validation cost and output size are
 * unbounded"): arguments with tens of thousands of problems, a schema whose one failure is
 * reported 2^14 times, values and names of a hundred kilobytes. Each must answer a bounded list
 * of problems, the first ones, with how many more there are, on both engines, and never throw.
 * (How long they take is measured in bench/validation-worst-case.ts, never asserted here.)
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import { MAX_LISTED_VIOLATIONS, type EngineOptions, type FailedValidation, type SchemaValidator, type ValidationOutcome } from '../../lib/validation/validator.ts';
import { ECHO_SCHEMA, NULLABLE_TAGS_SCHEMA, STRING_TAGS_SCHEMA, refChainSchema, unknownArguments, wrongTags } from '../fixtures/validation-attacks.ts';

const ENGINES: [string, (options?: EngineOptions) => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

function failed(outcome: ValidationOutcome): FailedValidation {
  if (outcome.valid) throw new Error('the arguments were accepted');
  return outcome;
}

const messagesOf = (outcome: FailedValidation) => outcome.violations.map((v) => v.message);
const itemMessages = (count: number, rule: string) => Array.from({ length: count }, (_, i) => `\`tags[${i}]\` ${rule}`);
/** Everything a caller gets back, as JSON: what must stay small. */
const sizeOf = (outcome: FailedValidation) => JSON.stringify(outcome).length;

describe('a bounded list of problems, the first ones, and how many more', () => {
  for (const [engine, make] of ENGINES) {
    it(`${engine}: 25 wrong items list the first 20 and count 5 more`, () => {
      const outcome = failed(make().compile(NULLABLE_TAGS_SCHEMA)(wrongTags(25)));
      expect(messagesOf(outcome)).toEqual(itemMessages(MAX_LISTED_VIOLATIONS, 'must match one of: a string | null'));
      expect(outcome.omitted).toBe(5);
      expect(outcome.incomplete).toBeUndefined();
    });

    it(`${engine}: 20 wrong items are all listed, nothing omitted`, () => {
      const outcome = failed(make().compile(NULLABLE_TAGS_SCHEMA)(wrongTags(20)));
      expect(outcome.violations).toHaveLength(20);
      expect(outcome).not.toHaveProperty('omitted');
    });

    it(`${engine}: 10,000 wrong nullable items (Pydantic's list[str | None]) answer 20 and count the other 9,980`, () => {
      const outcome = failed(make().compile(NULLABLE_TAGS_SCHEMA)(wrongTags(10_000)));
      expect(messagesOf(outcome)).toEqual(itemMessages(20, 'must match one of: a string | null'));
      expect(outcome.omitted).toBe(9_980);
      expect(sizeOf(outcome)).toBeLessThan(5_000);
    });

    it(`${engine}: 90,000 unknown arguments to echo answer 20 problems and count the rest`, () => {
      const outcome = failed(make().compile(ECHO_SCHEMA)(unknownArguments(90_000)));
      expect(messagesOf(outcome).slice(0, 2)).toEqual(['missing required argument `text`', 'unexpected argument `a0` is not allowed (allowed: text)']);
      expect(outcome.violations).toHaveLength(20);
      // 90,000 unknown arguments and the missing `text`, each counted once on both engines.
      expect(outcome.violations.length + (outcome.omitted ?? 0)).toBe(90_001);
      expect(sizeOf(outcome)).toBeLessThan(5_000);
    });

    it(`${engine}: a 14-level $ref chain of anyOf (2^14 failures inside) is one problem`, () => {
      // The lint refuses this schema (schema-cost.test.ts); with it off, the answer still stays one problem.
      const outcome = failed(make({ lint: false }).compile(refChainSchema(14))({ x: 1 }));
      expect(outcome).toEqual({
        valid: false,
        violations: [{ pointer: '/x', keyword: 'anyOf', message: '`x` must match one of: d1 | d1', detail: 'must match one of: d1 | d1' }],
      });
    });

    it(`${engine}: beside a folded $ref chain, the other problems are still listed`, () => {
      const schema = { ...(refChainSchema(10) as object), properties: { x: { $ref: '#/$defs/d0' }, y: { type: 'string' } }, required: ['z'] } as JsonSchema;
      expect(messagesOf(failed(make({ lint: false }).compile(schema)({ x: 1, y: 2 })))).toEqual([
        'missing required argument `z`',
        '`x` must match one of: d1 | d1',
        '`y` must be a string, got number 2',
      ]);
    });
  }

  it('ajv: 100,000 wrong items answer 20 and count the other 99,980', () => {
    for (const schema of [NULLABLE_TAGS_SCHEMA, STRING_TAGS_SCHEMA]) {
      const outcome = failed(createAjvValidator().compile(schema)(wrongTags(100_000)));
      expect(outcome.violations).toHaveLength(20);
      expect(outcome.omitted).toBe(99_980);
    }
  });

  it('cfworker: 100,000 wrong items overflow the library; the answer names the first problem and says there are too many', () => {
    const cases: [JsonSchema, string][] = [
      [NULLABLE_TAGS_SCHEMA, '`tags[0]` must match one of: a string | null'],
      [STRING_TAGS_SCHEMA, '`tags[0]` must be a string, got number 1'],
    ];
    for (const [schema, first] of cases) {
      const outcome = failed(createCfworkerValidator().compile(schema)(wrongTags(100_000)));
      expect(messagesOf(outcome)).toEqual([first]);
      expect(outcome.incomplete).toBe(true);
    }
  });
});

describe('uniqueItems over many objects (ajv compared every pair: 100,000 items, 5·10^9 deep comparisons)', () => {
  const schema: JsonSchema = { type: 'object', properties: { labels: { type: 'array', items: { type: 'object' }, uniqueItems: true } } };
  const labels = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, name: `label ${i}` }));

  it('ajv: 100,000 distinct objects are accepted', () => {
    expect(createAjvValidator().compile(schema)({ labels: labels(100_000) })).toEqual({ valid: true });
  });

  it('ajv: a duplicate at the far end, its keys in another order, is found', () => {
    const items: unknown[] = labels(100_000);
    items.push({ name: 'label 0', id: 0 });
    expect(messagesOf(failed(createAjvValidator().compile(schema)({ labels: items })))).toEqual(['`labels` must not contain duplicate items']);
  });

  for (const [engine, make] of ENGINES) {
    it(`${engine}: JSON Schema equality, as before (1 and 1.0 equal; 1, true, "1", [1] and {"a":1} all different)`, () => {
      const any: JsonSchema = { type: 'object', properties: { p: { type: 'array', uniqueItems: true } } };
      const check = make().compile(any);
      expect(check({ p: [1, true, '1', [1], { a: 1 }, [true], { a: true }, null, 0, false, ''] })).toEqual({ valid: true });
      for (const p of [[1, 1.0], [{ a: 1, b: [2] }, { b: [2], a: 1 }], [[{}], [{}]], [null, null]]) {
        expect(messagesOf(failed(check({ p })))).toEqual(['`p` must not contain duplicate items']);
      }
    });
  }
});

describe('the schema lint over many anchor refs (it searched the whole document text once per ref)', () => {
  const schema = (count: number, anchor: string): JsonSchema => ({
    type: 'array',
    // One ref object at every place: a schema holds at most 2,000 subschemas, and the lint walks every place.
    prefixItems: Array<JsonSchema>(count).fill({ $ref: `#${anchor}` }),
    $defs: { a: { $anchor: 'a', type: 'string' } },
  });

  it('8,000 refs to an anchor (175 KB) resolve', () => {
    expect(lintSchema(schema(8_000, 'a'))).toEqual([]);
  });

  it('a ref to a missing anchor is still refused, at each place', () => {
    const problems = lintSchema(schema(8_000, 'b'));
    expect(problems).toHaveLength(8_000);
    expect(problems[0]).toEqual({ path: 'prefixItems[0].$ref', message: 'cannot resolve "#b": tool schemas may only reference their own $defs' });
  });
});

describe('nothing a value or a name holds makes a message long', () => {
  const huge = 'x'.repeat(100_000);
  const cases: [string, JsonSchema, unknown, string][] = [
    ['an enum given a 100 KB string', { type: 'object', properties: { m: { enum: ['a', 'b'] } } }, { m: huge }, `\`m\` must be one of "a", "b", got "${'x'.repeat(79)}…`],
    ['a const given a 50,000-item array', { type: 'object', properties: { m: { const: 1 } } }, { m: Array(50_000).fill({ a: 1 }) }, `\`m\` must be exactly 1, got [${'{"a":1},'.repeat(9)}{"a":1}…`],
    [
      'an enum of 10,000 values',
      { type: 'object', properties: { m: { enum: Array.from({ length: 10_000 }, (_, i) => `value-${i}`) } } },
      { m: 'nope' },
      // Values up to ~300 characters, then how many are left out.
      `\`m\` must be one of ${Array.from({ length: 26 }, (_, i) => `"value-${i}"`).join(', ')} (and 9974 more), got "nope"`,
    ],
    [
      // The widest the schema cost bound accepts (1,000 applications at one value: the anyOf and its branches).
      'an anyOf of 999 branches',
      { type: 'object', properties: { m: { anyOf: Array.from({ length: 999 }, (_, i) => ({ const: i })) } } },
      { m: 'nope' },
      `\`m\` must match one of: ${Array.from({ length: 62 }, (_, i) => String(i)).join(' | ')} (and 937 more)`,
    ],
    [
      'an unknown argument with a 100 KB name',
      ECHO_SCHEMA,
      { text: 'a', [huge]: 1 },
      `unexpected argument \`"${'x'.repeat(64)}…"\` is not allowed (allowed: text)`,
    ],
  ];
  for (const [engine, make] of ENGINES) {
    for (const [what, schema, data, message] of cases) {
      it(`${engine}: ${what}`, () => {
        const outcome = failed(make().compile(schema)(data));
        expect(messagesOf(outcome)).toEqual([message]);
        expect(message.length).toBeLessThan(500);
      });
    }
  }
});

describe('arguments no engine can walk are refused, not thrown', () => {
  // Deeper than any stack: over HTTP the body parser refuses past 64 levels, but the library
  // (ToolRouter) takes objects as they come.
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 200_000; i++) deep = { c: deep };
  const recursive: JsonSchema = { $defs: { node: { type: 'object', properties: { c: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' };

  for (const [engine, make] of ENGINES) {
    it(`${engine}: a 200,000-level object against a recursive schema`, () => {
      const outcome = failed(make().compile(recursive)(deep));
      expect(outcome.incomplete).toBe(true);
      expect(messagesOf(outcome)).toEqual(['`arguments` have too many problems (or are too large) to check against this schema; send fewer, smaller values']);
    });
  }
});
