import { PatternBudgetError, withPatternBudget } from './budget.ts';
import { LinearMatcher } from './matcher.ts';
import { parsePattern } from './parse.ts';
import { quotePattern } from './pattern-error.ts';
import { buildProgram } from './program.ts';

/** What a compiled pattern offers: the part of RegExp that validation and policy rules use. */
export interface SafePattern {
  readonly source: string;
  readonly flags: string;
  test(input: string): boolean;
  /** As a RegExp prints (ajv keys compiled patterns by it). */
  toString(): string;
}

export interface SafePatternOptions {
  /**
   * Match the whole value, start to end (policy rules), instead of anywhere in it (JSON Schema's
   * `pattern`). Anchored in the automaton, not by wrapping the source in `^(?:...)$`, which a
   * source such as `a)|(.*` would break out of.
   */
  wholeValue?: boolean;
}

/**
 * Compiles an ECMA-262 pattern (`u` flag; i, m, s allowed) for matching in time linear in the
 * input. Throws PatternError for a pattern that is invalid, needs backtracking (backreferences,
 * lookaround) or is too large. Its matches are JavaScript's: characters are tested by the
 * runtime's own RegExp one at a time, and only the structure is run by the linear-time matcher.
 * A check that would take too long throws PatternBudgetError (see budget.ts) instead of blocking.
 */
export function compileSafePattern(source: string, flags = 'u', options: SafePatternOptions = {}): SafePattern {
  const parsed = parsePattern(source, flags);
  const matcher = new LinearMatcher(buildProgram(parsed), parsed.flags);
  const wholeValue = options.wholeValue === true;
  return {
    source,
    flags,
    test(input: string): boolean {
      const value = String(input);
      try {
        return withPatternBudget(() => matcher.test(value, wholeValue));
      } catch (error) {
        if (!(error instanceof PatternBudgetError)) throw error;
        throw new PatternBudgetError(
          `a value of ${value.length} characters is too long or too varied to check against the pattern ${quotePattern(source)} in bounded time: send a shorter value`,
        );
      }
    },
    toString: () => `/${source}/${flags}${wholeValue ? ' (whole value)' : ''}`,
  };
}
