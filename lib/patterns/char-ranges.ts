import type { AST } from '@eslint-community/regexpp';
import type { CharAtom } from './char-test.ts';
import type { PatternFlags } from './parse.ts';

/**
 * A set of code points as sorted, disjoint, non-adjacent inclusive ranges, flattened:
 * `[lo0, hi0, lo1, hi1, ...]`.
 */
export type Ranges = readonly number[];

export const MAX_CODE_POINT = 0x10ffff;

/** Sorts and merges ranges given as pairs in any order. */
export function normalizeRanges(pairs: readonly number[]): number[] {
  const order = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort((a, b) => pairs[2 * a] - pairs[2 * b]);
  const merged: number[] = [];
  for (const i of order) {
    const lo = pairs[2 * i];
    const hi = pairs[2 * i + 1];
    if (merged.length > 0 && lo <= merged[merged.length - 1] + 1) merged[merged.length - 1] = Math.max(merged[merged.length - 1], hi);
    else merged.push(lo, hi);
  }
  return merged;
}

export function complementRanges(ranges: Ranges): number[] {
  const result: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i] > next) result.push(next, ranges[i] - 1);
    next = ranges[i + 1] + 1;
  }
  if (next <= MAX_CODE_POINT) result.push(next, MAX_CODE_POINT);
  return result;
}

const DIGITS: Ranges = [0x30, 0x39];
/** ECMA-262 WhiteSpace and LineTerminator (Unicode "Zs" as of Unicode 16; test/patterns pins it to the runtime's \s). */
export const SPACES: Ranges = [0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff];
const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** With `u` and `i`, \w also holds ſ and K (Kelvin), whose case folding is a word character. */
const WORD_IGNORE_CASE: Ranges = normalizeRanges([...WORD, 0x017f, 0x017f, 0x212a, 0x212a]);
const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const ASCII_LETTERS: Ranges = [0x41, 0x5a, 0x61, 0x7a];

/**
 * Under `i`, a character also matches the characters of its case-folding class. No data says
 * which those are, so a superset: an ASCII character other than a letter folds to nothing else
 * (and nothing folds to it), any other character may fold to any letter or non-ASCII character.
 */
function widenForCase(ranges: Ranges): Ranges {
  const foldable = normalizeRanges([...ASCII_LETTERS, 0x80, MAX_CODE_POINT]);
  if (!intersects(ranges, foldable)) return ranges;
  return normalizeRanges([...ranges, ...foldable]);
}

export function intersects(a: Ranges, b: Ranges): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1] < b[j]) i += 2;
    else if (b[j + 1] < a[i]) j += 2;
    else return true;
  }
  return false;
}

type EscapeSet = AST.EscapeCharacterSet | AST.AnyCharacterSet;

/** An escape's exact set (the same under `i`: \d, \s and \w are closed under case folding as ECMA-262 defines them). */
function escapeRanges(set: EscapeSet, flags: PatternFlags): Ranges {
  if (set.kind === 'any') return flags.dotAll ? [0, MAX_CODE_POINT] : complementRanges(LINE_TERMINATORS);
  const positive = set.kind === 'digit' ? DIGITS : set.kind === 'space' ? SPACES : flags.ignoreCase ? WORD_IGNORE_CASE : WORD;
  return set.negate ? complementRanges(positive) : positive;
}

/** A class element other than a property escape, as it names characters before case folding. */
export type PlainClassElement = AST.Character | AST.CharacterClassRange | AST.EscapeCharacterSet;

export function isPlainClassElement(element: AST.CharacterClassElement): element is PlainClassElement {
  return element.type === 'Character' || element.type === 'CharacterClassRange' || (element.type === 'CharacterSet' && element.kind !== 'property');
}

/** What a plain class element names, before case folding (for an escape, exact under `i` too). */
export function plainElementRanges(element: PlainClassElement, flags: PatternFlags): Ranges {
  if (element.type === 'Character') return [element.value, element.value];
  if (element.type === 'CharacterClassRange') return [element.min.value, element.max.value];
  return escapeRanges(element, flags);
}

/** Elements a class names before case folding; undefined when one of them cannot be listed. */
function classElementRanges(node: AST.CharacterClass, flags: PatternFlags): { literal: number[]; escapes: number[] } | undefined {
  const literal: number[] = [];
  const escapes: number[] = [];
  for (const element of node.elements) {
    if (!isPlainClassElement(element)) return undefined;
    (element.type === 'CharacterSet' ? escapes : literal).push(...plainElementRanges(element, flags));
  }
  return { literal, escapes };
}

/**
 * The code points `atom` may match, as ranges: exact without `i`, a superset under it. Undefined
 * for an atom no range list can describe without Unicode's data: a property escape (\p{...}),
 * or a class holding one.
 */
export function atomRanges(atom: CharAtom, flags: PatternFlags): Ranges | undefined {
  const cased = (ranges: Ranges) => (flags.ignoreCase ? widenForCase(ranges) : ranges);
  switch (atom.type) {
    case 'Character':
      return cased([atom.value, atom.value]);
    case 'CharacterSet':
      return atom.kind === 'property' ? undefined : escapeRanges(atom, flags);
    case 'CharacterClass': {
      const parts = classElementRanges(atom, flags);
      if (!parts) return undefined;
      // Negated under `i`: the complement of the folded set lies inside the complement of the unfolded one.
      if (atom.negate) return complementRanges(normalizeRanges([...parts.literal, ...parts.escapes]));
      return normalizeRanges([...cased(normalizeRanges(parts.literal)), ...parts.escapes]);
    }
    default:
      return undefined;
  }
}
