import { RegExpParser, visitRegExpAST, type AST } from '@eslint-community/regexpp';
import { NativeRegExp } from './native-regexp.ts';
import { groupNestingDepth, MAX_NESTING_DEPTH } from './nesting.ts';
import { propertyEscapeRegExp, separatePropertyEscapes } from './property-escapes.ts';
import { PatternError } from './pattern-error.ts';

/** The flags a pattern may carry: `u` always (JSON Schema's and the policy's dialect), i, m, s optional. */
export interface PatternFlags {
  /** The flags as given, for `toString` and for the runtime's own per-character tests. */
  text: string;
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
}

export interface ParsedPattern {
  source: string;
  flags: PatternFlags;
  ast: AST.Pattern;
}

const parser = new RegExpParser();

/** Longer sources are refused before parsing: checking one must not take long either. */
export const MAX_PATTERN_LENGTH = 10_000;

function parseFlags(flags: string): PatternFlags {
  const known = /^[imsu]*$/.test(flags) && new Set(flags).size === flags.length;
  if (!known || !flags.includes('u')) {
    throw new PatternError(`flags ${JSON.stringify(flags)} are not supported: patterns use "u" (Unicode), optionally with i, m or s`);
  }
  return { text: flags, ignoreCase: flags.includes('i'), multiline: flags.includes('m'), dotAll: flags.includes('s') };
}

/**
 * Valid for the runtime's own engine (whose per-character tests the matcher uses) and for the
 * parser. The runtime checks the structure, and each distinct property escape once per process
 * (property-escapes.ts): looking \p{...} up is the costly part of building a RegExp.
 */
function parseSyntax(source: string, flags: PatternFlags): AST.Pattern {
  try {
    const { structure, escapes } = separatePropertyEscapes(source);
    for (const escape of escapes) propertyEscapeRegExp(escape);
    new NativeRegExp(structure, flags.text);
    return parser.parsePattern(source, 0, source.length, { unicode: true });
  } catch {
    throw new PatternError('is not a valid regular expression');
  }
}

const BACKREFERENCE =
  'uses a backreference (\\1, \\k<name>), which needs a backtracking engine: patterns are matched in linear time; repeat the group\'s pattern instead of referring back to it';
const LOOKAROUND =
  'uses lookaround ((?=...), (?!...), (?<=...), (?<!...)), which needs a backtracking engine: patterns are matched in linear time; state the condition without it (a character class, or a separate schema keyword such as "not")';
const MODIFIERS = 'uses inline flags ((?i:...)), which are not supported: spell the cases out, e.g. [Aa]';

/** Constructs the linear-time matcher cannot run: refused with what to write instead. */
function refuseUnsupported(ast: AST.Pattern): void {
  let problem: string | undefined;
  visitRegExpAST(ast, {
    onBackreferenceEnter: () => void (problem ??= BACKREFERENCE),
    onAssertionEnter: (node) => {
      if (node.kind === 'lookahead' || node.kind === 'lookbehind') problem ??= LOOKAROUND;
    },
    onModifiersEnter: () => void (problem ??= MODIFIERS),
  });
  if (problem) throw new PatternError(problem);
}

/** Parses an ECMA-262 pattern (with the `u` flag) and refuses what the linear-time matcher cannot run. */
export function parsePattern(source: string, flags: string): ParsedPattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`is longer than ${MAX_PATTERN_LENGTH.toLocaleString('en-US')} characters: write a shorter pattern, or check the value another way (enum, maxLength)`);
  }
  const depth = groupNestingDepth(source);
  if (depth > MAX_NESTING_DEPTH) {
    throw new PatternError(`nests groups ${depth} deep (at most ${MAX_NESTING_DEPTH}): use fewer nested groups, or check the value another way (enum, maxLength)`);
  }
  const parsedFlags = parseFlags(flags);
  const ast = parseSyntax(source, parsedFlags);
  refuseUnsupported(ast);
  return { source, flags: parsedFlags, ast };
}
