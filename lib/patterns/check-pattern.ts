import { findCatastrophicPart } from './catastrophic.ts';
import { parsePattern } from './parse.ts';
import { PatternError, quotePattern } from './pattern-error.ts';
import { assertProgramSize } from './program.ts';

/**
 * The publish-time check of a schema `pattern`, a `patternProperties` key or a policy rule
 * pattern: a problem message (starting with the quoted pattern) or undefined. Refuses what the
 * linear-time matcher cannot run (invalid, backreferences, lookaround, too large) and what would
 * backtrack catastrophically in a backtracking engine, which the eval-free validation engine
 * and any client validating with the schema still use. Never throws: a failure the check did not
 * foresee is a refusal too.
 */
export function checkPattern(source: string, flags = 'u'): string | undefined {
  const quoted = quotePattern(source);
  try {
    const parsed = parsePattern(source, flags);
    assertProgramSize(parsed);
    const catastrophic = findCatastrophicPart(parsed);
    return catastrophic === undefined ? undefined : `${quoted} can backtrack catastrophically: ${catastrophic}`;
  } catch (error) {
    if (error instanceof PatternError) return `${quoted} ${error.message}`;
    // A failure the check did not foresee refuses the pattern: publishing must answer, never fail.
    const reason = error instanceof Error ? error.message : String(error);
    return `${quoted} could not be checked (${reason}): write a simpler pattern, or check the value another way (enum, maxLength)`;
  }
}
