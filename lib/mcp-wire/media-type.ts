/**
 * Media types on MCP's HTTP transport, read as the official SDKs read them: by the parsed
 * `type/subtype` (RFC 9110), never by a substring, so `text/plain; a=application/json` is not
 * JSON. A value whose parameters do not parse still counts by the part before its first `;`
 * (as browsers read it), unless a comma there hints at joined duplicate headers.
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);
// eslint-disable-next-line no-control-regex -- the quoted-string grammar of RFC 9110 names these bytes
const PARAMETER = new RegExp(`; *${TOKEN} *= *(?:"(?:[\\u000b\\u0020\\u0021\\u0023-\\u005b\\u005d-\\u007e\\u0080-\\u00ff]|\\\\[\\u000b\\u0020-\\u00ff])*"|${TOKEN}) *`, 'y');

/** The lower-cased `type/subtype` of a Content-Type value, or undefined when there is none. */
export function mediaTypeEssence(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const semicolon = header.indexOf(';');
  const essence = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (MEDIA_TYPE.test(essence) && (semicolon === -1 || parametersParse(header, semicolon))) return essence;
  return essence === '' || header.slice(essence.length).includes(',') ? undefined : essence;
}

export function isJsonContentType(header: string | null | undefined): boolean {
  return header === 'application/json' || mediaTypeEssence(header) === 'application/json';
}

function parametersParse(header: string, from: number): boolean {
  let index = from;
  while (index < header.length) {
    PARAMETER.lastIndex = index;
    const match = PARAMETER.exec(header);
    if (!match) return false;
    index += match[0].length;
  }
  return true;
}
