import type { AST } from '@eslint-community/regexpp';
import { spendPatternBudget } from './budget.ts';
import { NativeRegExp } from './native-regexp.ts';
import type { PatternFlags } from './parse.ts';

/** Whether one character (a code point) is matched by one atom of the pattern. */
export type CharTest = (codePoint: number) => boolean;

/** The atoms that consume exactly one character. */
export type CharAtom = AST.Character | AST.CharacterSet | AST.CharacterClass | AST.ExpressionCharacterClass;

const MEMO_LIMIT = 512;

/**
 * Steps a test's RegExp costs to build, charged when it is built: a few microseconds, and tens
 * with a property escape (the runtime looks the property up). Built on first use, not when the
 * pattern compiles: a policy of many patterns with many distinct atoms compiles at once.
 */
const BUILD_STEPS = 300;
const PROPERTY_BUILD_STEPS = 6000;

/**
 * The atom's meaning is the runtime's own: a one-character string tested against the atom alone
 * (`^(?:[^"\\])$`) cannot backtrack, and it keeps every ECMA-262 subtlety (\s, \w, \p{...},
 * case folding under `i`, `.` and line terminators) exactly as JavaScript defines it, where a
 * translation to another engine's dialect would drift. Results are remembered per code point.
 */
export function charTest(atom: CharAtom, flags: PatternFlags): CharTest {
  if (atom.type === 'Character' && !flags.ignoreCase) {
    const value = atom.value;
    return (codePoint) => codePoint === value;
  }
  let single: RegExp | undefined;
  const memo = new Map<number, boolean>();
  return (codePoint) => {
    const known = memo.get(codePoint);
    if (known !== undefined) return known;
    if (!single) {
      spendPatternBudget(/\\[pP]/.test(atom.raw) ? PROPERTY_BUILD_STEPS : BUILD_STEPS);
      single = new NativeRegExp(`^(?:${atom.raw})$`, flags.text.replace('m', ''));
    }
    const result = single.test(String.fromCodePoint(codePoint));
    if (memo.size < MEMO_LIMIT) memo.set(codePoint, result);
    return result;
  };
}

/** A test per distinct atom text: `[a-z]{1,60}` repeats one atom sixty times, with one test. */
export function charTestCache(flags: PatternFlags): (atom: CharAtom) => CharTest {
  const tests = new Map<string, CharTest>();
  return (atom) => {
    let test = tests.get(atom.raw);
    if (!test) tests.set(atom.raw, (test = charTest(atom, flags)));
    return test;
  };
}
