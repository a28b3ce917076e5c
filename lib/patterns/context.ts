import type { PatternFlags } from './parse.ts';
import type { AssertionKind } from './program.ts';

/** What the zero-width assertions can see at a position, as 3 bits. */
const AT_START = 1;
const AT_END = 2;
const AT_BOUNDARY = 4;

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);

function isWordCharacter(codePoint: number, flags: PatternFlags): boolean {
  if ((codePoint >= 0x61 && codePoint <= 0x7a) || (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x30 && codePoint <= 0x39) || codePoint === 0x5f) return true;
  // ECMA-262 IsWordChar: with i and u, characters whose case folding is a word character count too.
  return flags.ignoreCase && (codePoint === 0x017f || codePoint === 0x212a);
}

/**
 * The context at `index`, between `previous` and `next` (-1 past either end): ECMA-262's `^`,
 * `$` (line boundaries too under `m`) and `\b` depend on nothing else.
 */
export function assertionContext(flags: PatternFlags, previous: number, next: number, index: number, length: number): number {
  let context = 0;
  if (index === 0 || (flags.multiline && LINE_TERMINATORS.has(previous))) context |= AT_START;
  if (index === length || (flags.multiline && LINE_TERMINATORS.has(next))) context |= AT_END;
  if (isWordCharacter(previous, flags) !== isWordCharacter(next, flags)) context |= AT_BOUNDARY;
  return context;
}

export function assertionHolds(kind: AssertionKind, context: number): boolean {
  if (kind === 'start') return (context & AT_START) !== 0;
  if (kind === 'end') return (context & AT_END) !== 0;
  return ((context & AT_BOUNDARY) !== 0) === (kind === 'word');
}
