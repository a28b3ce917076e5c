import { compileSafePattern, type SafePattern } from '../../patterns/index.ts';

/**
 * Which URIs an RFC 6570 URI template (a pinned resource template) stands for. Each expression
 * becomes what its expansion can produce, and the whole is matched by toolgate's linear-time
 * matcher (lib/patterns), so no template, however written, can make a lookup slow. Matching is
 * by shape: the upstream reads the variables itself.
 */

/** What each operator's expansion can look like (RFC 6570 §3.2): simple and reserved values, then the prefixed lists. */
const EXPANSIONS: Record<string, string> = {
  '': '[^/?#]+',
  '+': '[\\s\\S]+',
  '#': '(?:#[\\s\\S]*)?',
  '.': '(?:\\.[^/?#.]*)*',
  '/': '(?:/[^/?#]*)*',
  ';': '(?:;[^/?#]*)*',
  '?': '(?:\\?[^#]*)?',
  '&': '(?:&[^#]*)?',
};

/** varname (RFC 6570 §2.3), with the prefix and explode modifiers. */
const VARSPEC = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?$/;
/** ECMAScript's syntax characters (and `/`): the only ones a `u` pattern lets be escaped. */
const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

export type UriTemplateMatcher = { ok: true; matches(uri: string): boolean } | { ok: false; problem: string };

function expression(body: string): string | { problem: string } {
  const first = body.charAt(0);
  const operator = first !== '' && Object.hasOwn(EXPANSIONS, first) ? first : '';
  const names = body.slice(operator.length).split(',');
  const bad = names.find((name) => !VARSPEC.test(name));
  if (bad !== undefined) return { problem: `its expression {${body}} names ${bad === '' ? 'no variable' : `"${bad}", which is not a variable name`}` };
  return EXPANSIONS[operator]!;
}

export function uriTemplateMatcher(template: string): UriTemplateMatcher {
  let source = '';
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (close >= 0 && (open < 0 || close < open)) return { ok: false, problem: 'it has a } that closes no expression' };
    if (open < 0) {
      source += rest.replace(SYNTAX, '\\$&');
      break;
    }
    source += rest.slice(0, open).replace(SYNTAX, '\\$&');
    const end = rest.indexOf('}', open);
    if (end < 0) return { ok: false, problem: 'it has a { that is never closed' };
    const expanded = expression(rest.slice(open + 1, end));
    if (typeof expanded !== 'string') return { ok: false, problem: expanded.problem };
    source += expanded;
    rest = rest.slice(end + 1);
  }
  let pattern: SafePattern;
  try {
    pattern = compileSafePattern(source, 'u', { wholeValue: true });
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, matches: (uri) => pattern.test(uri) };
}
