/**
 * A failure the check did not foresee (a bug, the stack running out) must refuse the pattern,
 * with the usual quoted message, never escape as an exception: publishing answered 500 with
 * "Maximum call stack size exceeded" before. The analysis is replaced by one that fails.
 */
import { describe, expect, it, vi } from 'vitest';
import { checkPattern } from '../../lib/patterns/index.ts';

vi.mock('../../lib/patterns/catastrophic.ts', () => ({
  findCatastrophicPart: () => {
    throw new RangeError('Maximum call stack size exceeded');
  },
}));

describe('checkPattern when the check itself fails', () => {
  it('refuses the pattern, saying so, instead of throwing', () => {
    expect(checkPattern('^(?:a+b)*$')).toBe(
      '"^(?:a+b)*$" could not be checked (Maximum call stack size exceeded): write a simpler pattern, or check the value another way (enum, maxLength)',
    );
  });
});
