import { format } from '@cfworker/json-schema';
import { NativeRegExp } from '../patterns/native-regexp.ts';
import { isUrl } from './url-format.ts';

/** `\Z` is not an ECMAScript anchor (a PCRE habit): the library refuses it, and so does this. */
const PCRE_END_ANCHOR = /[^\\]\\Z/;

/**
 * `format: "regex"`: a pattern the runtime's own constructor accepts in Unicode mode. The
 * library's check builds it with the global RegExp, which the eval-free engine swaps for the
 * linear-time matcher while it validates (linear-patterns.ts): that would answer differently
 * from ajv, which calls this outside the swap. Building a pattern does not run it.
 */
function isRegex(value: string): boolean {
  if (PCRE_END_ANCHOR.test(value)) return false;
  try {
    new NativeRegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
}

// The library's table is module state, read by every Validator: these replace its entries
// for all of them. Its `url` check backtracks exponentially (url-format.ts).
format.url = isUrl;
format.regex = isRegex;

/**
 * The string formats both engines check, with the same functions, so a value is accepted or
 * refused alike on every runtime: @cfworker/json-schema's checks (which pass more of the
 * official suite's format tests than ajv-formats', in every format but none) with the two above.
 * Formats outside it (OpenAPI's int32, byte, ...) are annotations on both engines.
 */
export const STRING_FORMATS: Readonly<Record<string, (value: string) => boolean>> = format;
