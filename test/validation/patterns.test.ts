/**
 * Schema patterns as attacks: catastrophic ones are refused with their paths, and even a schema
 * that reached an engine without the lint answers adversarial inputs at once and rightly.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { InvalidSchemaError, type EngineOptions, type SchemaValidator } from '../../lib/validation/validator.ts';

const ENGINES: [string, (options?: EngineOptions) => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

const NATIVE_REGEXP = globalThis.RegExp;
const ATTACK = `${'a'.repeat(29)}!`;

/** Catastrophic under a backtracking engine: 30 characters would take minutes. */
const catastrophic: JsonSchema = {
  type: 'object',
  properties: { code: { type: 'string', pattern: '^(a+)+$' } },
  patternProperties: { '^(a|aa)+$': { type: 'integer' } },
};

for (const [engine, make] of ENGINES) {
  describe(`${engine}: schema patterns`, () => {
    it('compile refuses a catastrophic pattern and patternProperties key, with their paths', () => {
      const compile = () => make().compile(catastrophic);
      expect(compile).toThrow(InvalidSchemaError);
      expect(compile).toThrow(/^properties\.code\.pattern: "\^\(a\+\)\+\$" can backtrack catastrophically: the repetition a\+ inside the repetition \(a\+\)\+ /);
      expect(compile).toThrow(/; patternProperties\["\^\(a\|aa\)\+\$"\]: "\^\(a\|aa\)\+\$" can backtrack catastrophically: the alternatives "a" and "aa" /);
      expect(make().check(catastrophic).map((p) => p.path)).toEqual(['properties.code.pattern', 'patternProperties["^(a|aa)+$"]']);
    });

    it('without the lint, the engine still answers 30-character attacks at once, and rightly', () => {
      const validate = make({ lint: false }).compile(catastrophic);
      expect(validate({ code: ATTACK })).toMatchObject({ valid: false, violations: [{ pointer: '/code', keyword: 'pattern' }] });
      expect(validate({ code: 'a'.repeat(30) })).toEqual({ valid: true });
      // The key is tested against the pattern: no match, so no constraint; a match must be an integer.
      expect(validate({ [ATTACK]: 'text' })).toEqual({ valid: true });
      expect(validate({ ['a'.repeat(30)]: 'text' })).toMatchObject({ valid: false, violations: [{ pointer: `/${'a'.repeat(30)}`, keyword: 'type' }] });
      expect(globalThis.RegExp).toBe(NATIVE_REGEXP);
    });

    it('refuses arguments that would take too long to check, instead of blocking', () => {
      // Accepted by the lint (one repetition, no overlap), but each input position is a new set of 900 threads.
      const crafted = make().compile({ type: 'object', properties: { text: { type: 'string', pattern: '[ab]*a[ab]{900}$' } } });
      let seed = 7;
      const text = Array.from({ length: 100_000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 2 === 0 ? 'a' : 'b')).join('');
      expect(crafted({ text })).toEqual({
        valid: false,
        violations: [{ pointer: '', keyword: 'pattern', message: expect.stringMatching(/^a value of 100000 characters is too long or too varied to check against the pattern "\[ab\]\*a\[ab\]\{900\}\$" in bounded time/), detail: expect.any(String) }],
      });
      // A shorter value is checked: it does not match (no "a" 901 characters from its end).
      expect(crafted({ text: text.slice(0, 300) })).toMatchObject({ valid: false, violations: [{ pointer: '/text', keyword: 'pattern' }] });
      expect(globalThis.RegExp).toBe(NATIVE_REGEXP);
    });

    it('patterns keep their JavaScript meaning (\\s includes no-break space, \\d is ASCII, "." excludes line terminators)', () => {
      const validate = make().compile({ type: 'object', properties: { s: { pattern: '^\\s$' }, d: { pattern: '^\\d+$' }, dot: { pattern: '^.$' } } });
      expect(validate({ s: '\u00a0' })).toEqual({ valid: true });
      expect(validate({ d: '٣' }).valid).toBe(false);
      expect(validate({ dot: '\u2028' }).valid).toBe(false);
      expect(validate({ dot: '😀' })).toEqual({ valid: true });
    });
  });
}

describe('cfworker: the swapped RegExp', () => {
  it('keeps format "regex" judging JavaScript syntax (lookaround included), and puts the native RegExp back', () => {
    const validate = createCfworkerValidator().compile({ type: 'object', properties: { re: { type: 'string', format: 'regex' } } });
    expect(validate({ re: 'a(?=b)' })).toEqual({ valid: true });
    expect(validate({ re: '(a' }).valid).toBe(false);
    expect(globalThis.RegExp).toBe(NATIVE_REGEXP);
    expect(/a+/.test('aa') && new RegExp('a+').test('aa')).toBe(true);
  });
});
