import type { AST } from '@eslint-community/regexpp';
import type { CharAtom } from './char-test.ts';
import { SPACES, type Ranges } from './char-ranges.ts';
import { NativeRegExp } from './native-regexp.ts';

/**
 * Unicode's General_Category values that are not groups: every code point has exactly one, so
 * two sets whose categories differ share no character. This is what lets the check tell
 * property escapes apart (\p{Lu} and \p{Ll} are exclusive) without Unicode's tables.
 */
const LEAVES = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co', 'Cn'] as const;

/** A set of categories, one bit per leaf. */
export type Categories = number;
export const ALL_CATEGORIES: Categories = 2 ** LEAVES.length - 1;

const bits = (...leaves: string[]): Categories => leaves.reduce((set, leaf) => set | (1 << LEAVES.indexOf(leaf as (typeof LEAVES)[number])), 0);

/** Every name ECMA-262 accepts for a General_Category value (PropertyValueAliases.txt), to its leaves. */
const VALUES = new Map<string, Categories>();
for (const [leaves, ...names] of [
  [bits('Lu'), 'Lu', 'Uppercase_Letter'], [bits('Ll'), 'Ll', 'Lowercase_Letter'], [bits('Lt'), 'Lt', 'Titlecase_Letter'],
  [bits('Lm'), 'Lm', 'Modifier_Letter'], [bits('Lo'), 'Lo', 'Other_Letter'], [bits('Mn'), 'Mn', 'Nonspacing_Mark'],
  [bits('Mc'), 'Mc', 'Spacing_Mark'], [bits('Me'), 'Me', 'Enclosing_Mark'], [bits('Nd'), 'Nd', 'Decimal_Number', 'digit'],
  [bits('Nl'), 'Nl', 'Letter_Number'], [bits('No'), 'No', 'Other_Number'], [bits('Pc'), 'Pc', 'Connector_Punctuation'],
  [bits('Pd'), 'Pd', 'Dash_Punctuation'], [bits('Ps'), 'Ps', 'Open_Punctuation'], [bits('Pe'), 'Pe', 'Close_Punctuation'],
  [bits('Pi'), 'Pi', 'Initial_Punctuation'], [bits('Pf'), 'Pf', 'Final_Punctuation'], [bits('Po'), 'Po', 'Other_Punctuation'],
  [bits('Sm'), 'Sm', 'Math_Symbol'], [bits('Sc'), 'Sc', 'Currency_Symbol'], [bits('Sk'), 'Sk', 'Modifier_Symbol'],
  [bits('So'), 'So', 'Other_Symbol'], [bits('Zs'), 'Zs', 'Space_Separator'], [bits('Zl'), 'Zl', 'Line_Separator'],
  [bits('Zp'), 'Zp', 'Paragraph_Separator'], [bits('Cc'), 'Cc', 'Control', 'cntrl'], [bits('Cf'), 'Cf', 'Format'],
  [bits('Cs'), 'Cs', 'Surrogate'], [bits('Co'), 'Co', 'Private_Use'], [bits('Cn'), 'Cn', 'Unassigned'],
  [bits('Lu', 'Ll', 'Lt'), 'LC', 'Cased_Letter'], [bits('Lu', 'Ll', 'Lt', 'Lm', 'Lo'), 'L', 'Letter'],
  [bits('Mn', 'Mc', 'Me'), 'M', 'Mark', 'Combining_Mark'], [bits('Nd', 'Nl', 'No'), 'N', 'Number'],
  [bits('Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po'), 'P', 'Punctuation', 'punct'], [bits('Sm', 'Sc', 'Sk', 'So'), 'S', 'Symbol'],
  [bits('Zs', 'Zl', 'Zp'), 'Z', 'Separator'], [bits('Cc', 'Cf', 'Cs', 'Co', 'Cn'), 'C', 'Other'],
] as Array<[Categories, ...string[]]>) {
  for (const name of names) VALUES.set(name, leaves);
}

/** One match tells a code point's category: the index of the group that matched. */
let classifier: RegExp | undefined;

function categoryOf(codePoint: number): Categories {
  classifier ??= new NativeRegExp(`^(?:${LEAVES.map((leaf) => `(\\p{gc=${leaf}})`).join('|')})$`, 'u');
  const match = classifier.exec(String.fromCodePoint(codePoint));
  const index = match ? match.findIndex((group, i) => i > 0 && group !== undefined) - 1 : -1;
  return index < 0 ? ALL_CATEGORIES : 1 << index;
}

/** Ranges longer than this are not classified code point by code point: they may hold any category. */
const CLASSIFIED_RANGE = 64;

/** What an element covers: `some` may hold a character of these categories, `every` holds all of these categories. */
interface Cover {
  some: Categories;
  every: Categories;
}

const ANY: Cover = { some: ALL_CATEGORIES, every: 0 };

function rangesCover(ranges: Ranges, budget: { codePoints: number }): Cover {
  let some = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    const size = ranges[i + 1] - ranges[i] + 1;
    if (size > CLASSIFIED_RANGE || (budget.codePoints -= size) < 0) return ANY;
    for (let c = ranges[i]; c <= ranges[i + 1]; c++) some |= categoryOf(c);
  }
  return { some, every: 0 };
}

function propertyCover(set: AST.CharacterUnicodePropertyCharacterSet): Cover {
  const leaves = (set.key === 'General_Category' || set.key === 'gc') && set.value !== null ? VALUES.get(set.value) : undefined;
  if (leaves === undefined) return ANY;
  const exact = set.negate ? ALL_CATEGORIES & ~leaves : leaves;
  return { some: exact, every: exact };
}

function elementCover(element: AST.CharacterClassElement, budget: { codePoints: number }): Cover {
  if (element.type === 'Character') return rangesCover([element.value, element.value], budget);
  if (element.type === 'CharacterClassRange') return rangesCover([element.min.value, element.max.value], budget);
  if (element.type === 'CharacterSet' && element.kind === 'property' && !element.strings) return propertyCover(element);
  if (element.type === 'CharacterSet' && element.kind === 'digit' && !element.negate) return { some: bits('Nd'), every: 0 };
  if (element.type === 'CharacterSet' && element.kind === 'space' && !element.negate) return spacesCover();
  if (element.type === 'CharacterSet' && element.kind === 'word' && !element.negate) return { some: bits('Lu', 'Ll', 'Nd', 'Pc'), every: 0 };
  return ANY;
}

let spaces: Cover | undefined;
function spacesCover(): Cover {
  return (spaces ??= rangesCover(SPACES, { codePoints: Infinity }));
}

/**
 * The categories an atom with a property escape may match (a superset; all of them when unsure).
 * Only without `i`: under case folding \p{Lu} matches lower case letters too. `budget` bounds
 * the code points classified one by one (ranges of a class), for the whole pattern.
 */
export function atomCategories(atom: CharAtom, ignoreCase: boolean, budget: { codePoints: number }): Categories {
  if (ignoreCase) return ALL_CATEGORIES;
  if (atom.type === 'CharacterSet') return atom.kind === 'property' && !atom.strings ? propertyCover(atom).some : ALL_CATEGORIES;
  if (atom.type !== 'CharacterClass') return ALL_CATEGORIES;
  let some = 0;
  let every = 0;
  for (const element of atom.elements) {
    const cover = elementCover(element, budget);
    some |= cover.some;
    every |= cover.every;
  }
  // Negated: what no element covers entirely may still be matched.
  return atom.negate ? ALL_CATEGORIES & ~every : some;
}
