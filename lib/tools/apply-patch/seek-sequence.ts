/**
 * Locating a chunk's lines inside a file, the way Codex's apply_patch does it: four passes
 * from strict to lenient, each scanning the whole candidate range before the next pass starts,
 * so an exact match anywhere beats a fuzzy match earlier in the file.
 */

/*
 * Codex trims with Rust's notion of whitespace (the Unicode White_Space property). JavaScript's
 * String#trim uses a different set (it strips U+FEFF, keeps U+0085), which would let a BOM line
 * match where Codex refuses, so the set is spelled out.
 */
const LEADING_WHITESPACE = /^[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/;
const TRAILING_WHITESPACE = /[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/;

export function trimWhitespaceEnd(text: string): string {
  return text.replace(TRAILING_WHITESPACE, '');
}

export function trimWhitespace(text: string): string {
  return trimWhitespaceEnd(text).replace(LEADING_WHITESPACE, '');
}

/**
 * Models write plain ASCII punctuation even when the file holds typographic dashes, quotes or
 * odd spaces; the last pass maps those to ASCII on both sides (after trimming).
 */
export function normalisePunctuation(text: string): string {
  return trimWhitespace(text)
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018-\u201B]/g, "'")
    .replace(/[\u201C-\u201F]/g, '"')
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' ');
}

type LineKey = (line: string) => string;

/** The passes in the order Codex tries them. */
const PASSES: readonly LineKey[] = [
  (line) => line,
  trimWhitespaceEnd,
  trimWhitespace,
  normalisePunctuation,
];

function matchesAt(lines: readonly string[], pattern: readonly string[], at: number, key: LineKey): boolean {
  for (let offset = 0; offset < pattern.length; offset++) {
    if (key(lines[at + offset]) !== key(pattern[offset])) return false;
  }
  return true;
}

/**
 * Index of the first place at or after `start` where `pattern` occurs in `lines`, or null.
 *
 * With `eof` (the chunk ended with `*** End of File`) Codex considers only the position that
 * puts the pattern flush against the end of the file, and only when that is at or after `start`:
 * there is no fallback to an earlier occurrence, and no overlap with the chunk before. An empty
 * pattern matches at `start`.
 */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number | null {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return null;

  const last = lines.length - pattern.length;
  const first = eof ? Math.max(start, last) : start;
  for (const key of PASSES) {
    for (let at = first; at <= last; at++) {
      if (matchesAt(lines, pattern, at, key)) return at;
    }
  }
  return null;
}
