import { describe, expect, it } from 'vitest';
import { findJsonInputProblem, MAX_JSON_DEPTH } from '../../lib/validation/json-input.ts';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('findJsonInputProblem', () => {
  it('accepts what hashes and stores take: any Unicode text (pairs too), finite numbers, nesting up to the limit', () => {
    for (const value of ['😀 ü \u0000', { 'k😀': [1.5, -0, 1e308, null, true] }, nested(MAX_JSON_DEPTH), 'x', 3, null]) {
      expect(findJsonInputProblem(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('names the first lone surrogate, overflowing number or too deep value by its JSON path', () => {
    expect(findJsonInputProblem({ a: [{ 'b-c': 'x\udfff' }] })).toEqual({ path: '$.a[0]["b-c"]', message: expect.stringMatching(/^the string contains a lone surrogate \(\\udfff\)/) });
    expect(findJsonInputProblem({ ok: 1, ['\ud800x']: 1 }, 'arguments')?.path).toBe('arguments');
    expect(findJsonInputProblem({ ['\ud800x']: 1 })?.message).toMatch(/^the key "\\ud800x" contains a lone surrogate/);
    expect(findJsonInputProblem({ n: [1, JSON.parse('-1e999')] })).toEqual({ path: '$.n[1]', message: 'the number is out of range (it overflows to -Infinity); numbers must be finite' });
    expect(findJsonInputProblem('\ud800')?.path).toBe('$');
    expect(findJsonInputProblem(nested(MAX_JSON_DEPTH + 1))).toEqual({ path: `$${'[0]'.repeat(MAX_JSON_DEPTH)}`, message: `nested more than ${MAX_JSON_DEPTH} levels deep; flatten the value` });
    // 100 000 levels: refused without overflowing the stack of the check itself.
    expect(findJsonInputProblem(nested(100_000))?.message).toMatch(/^nested more than/);
  });
});
