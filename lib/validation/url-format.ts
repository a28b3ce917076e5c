/**
 * The non-standard `format: "url"` (ajv-formats and @cfworker/json-schema both know it), checked
 * in linear time. Both libraries test it with a regular expression that backtracks: the eval-free
 * engine's takes time exponential in the host name (`http://` + 26 × `a` + `!`: 444 ms, 4× per two
 * more characters), ajv-formats' quadratic in the length (100,000 colons: 10 s). A string is a
 * single value of the arguments, so no budget counts that work. Here: an absolute http, https or
 * ftp URL with a host, no whitespace, that the WHATWG URL parser (linear) accepts.
 */
const SCHEME_AND_HOST = /^(?:https?|ftp):\/\/[^\s/?#]/i;
const WHITESPACE = /\s/;

export function isUrl(value: string): boolean {
  return SCHEME_AND_HOST.test(value) && !WHITESPACE.test(value) && URL.canParse(value);
}
