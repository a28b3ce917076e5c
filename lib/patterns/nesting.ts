/**
 * How deep groups may nest. The parser, the compiler and the check walk the pattern's tree
 * recursively, one frame per level or so: this bound keeps them far from the stack's limit, and
 * keeps the check's work per node small. Patterns people write nest a handful of levels.
 */
export const MAX_NESTING_DEPTH = 32;

/**
 * The deepest nesting of parentheses in a source, read as ECMA-262 with the `u` flag: `\` escapes
 * the next character, and inside a character class `(` and `)` are plain characters. Scanned
 * before parsing, so a deeply nested source is refused without any recursion.
 */
export function groupNestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') deepest = Math.max(deepest, ++depth);
    else if (c === ')') depth = Math.max(0, depth - 1);
  }
  return deepest;
}
