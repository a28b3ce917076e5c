/**
 * How MCP carries a body value in an HTTP header (the 2026-07-28 `Mcp-Name` and `Mcp-Param-*`
 * headers): a value that is plain visible ASCII goes as it is; anything else (non-ASCII, control
 * characters, edge whitespace, an empty string, or text that looks like the sentinel itself) goes
 * as `=?base64?<base64 of its UTF-8>?=`, with canonical padding.
 */

const PREFIX = '=?base64?';
const SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The header value for `value`. */
export function encodeHeaderValue(value: string): string {
  if (!needsBase64(value)) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${PREFIX}${btoa(binary)}${SUFFIX}`;
}

/** The value a header carries, or undefined when it has the sentinel around something that is not canonical base64 of UTF-8. */
export function decodeHeaderValue(header: string): string | undefined {
  if (!isSentinel(header)) return header;
  const encoded = header.slice(PREFIX.length, header.length - SUFFIX.length);
  if (!CANONICAL_BASE64.test(encoded)) return undefined;
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A header value without the optional whitespace (space, tab) HTTP allows around it (RFC 9110 §5.5). */
export function stripOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isSentinel(value: string): boolean {
  return value.startsWith(PREFIX) && value.endsWith(SUFFIX);
}

function needsBase64(value: string): boolean {
  if (value.length === 0 || isSentinel(value) || value !== value.trim()) return true;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!(code === 0x09 || (code >= 0x20 && code <= 0x7e))) return true;
  }
  return false;
}
