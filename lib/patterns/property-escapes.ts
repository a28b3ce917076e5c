import { NativeRegExp } from './native-regexp.ts';

/**
 * The runtime's RegExp for one property escape (`\p{L}`, `\P{Script=Greek}`), built once per
 * process: building a RegExp with a property escape costs the runtime tens of microseconds (it
 * looks the property's characters up), so a pattern naming \p{L} a thousand times, or a thousand
 * patterns naming it, must not build it each time. Valid property names are a finite set; the
 * cache is cleared past its bound all the same.
 */
const known = new Map<string, RegExp>();
const KNOWN_LIMIT = 4096;

/** The escape as a global RegExp (callers reset `lastIndex`); throws SyntaxError for an invalid one. */
export function propertyEscapeRegExp(escape: string): RegExp {
  let regExp = known.get(escape);
  if (!regExp) {
    regExp = new NativeRegExp(escape, 'gu');
    if (known.size >= KNOWN_LIMIT) known.clear();
    known.set(escape, regExp);
  }
  return regExp;
}

/**
 * The source with every property escape replaced by `\d` (also a class escape, valid wherever one
 * is and nowhere else), and the escapes it held. The runtime checks the structure and each
 * distinct escape (once per process) instead of looking properties up for every occurrence.
 */
export function separatePropertyEscapes(source: string): { structure: string; escapes: Set<string> } {
  const escapes = new Set<string>();
  let structure = '';
  let copied = 0;
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== '\\') continue;
    const close = (source[i + 1] === 'p' || source[i + 1] === 'P') && source[i + 2] === '{' ? source.indexOf('}', i + 3) : -1;
    if (close < 0) {
      i++;
      continue;
    }
    escapes.add(source.slice(i, close + 1));
    structure += `${source.slice(copied, i)}\\d`;
    copied = close + 1;
    i = close;
  }
  return { structure: structure + source.slice(copied), escapes };
}
