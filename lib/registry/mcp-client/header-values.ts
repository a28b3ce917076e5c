import { isJsonObject, type JsonObject, type JsonValue } from '../json.ts';

/**
 * HTTP header values of the modern revisions (2026-07-28 Streamable HTTP): `Mcp-Name` and
 * `Mcp-Param-<Name>` mirror parts of the body. A value that is not plain visible ASCII (or has
 * edge whitespace, or looks like the sentinel) goes as `=?base64?<UTF-8 as base64>?=`.
 */
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

function needsBase64(value: string): boolean {
  if (value === '' || value !== value.trim()) return true;
  if (value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)) return true;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return true;
  }
  return false;
}

export function encodeHeaderValue(value: string): string {
  if (!needsBase64(value)) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${SENTINEL_PREFIX}${btoa(binary)}${SENTINEL_SUFFIX}`;
}

/** The body field `Mcp-Name` mirrors, by method. */
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** `Mcp-Name` for a request, when its method has one. */
export function mcpNameHeader(method: string, params: JsonObject | undefined): Record<string, string> {
  const field = NAME_SOURCE[method];
  const value = field ? params?.[field] : undefined;
  return typeof value === 'string' ? { 'mcp-name': encodeHeaderValue(value) } : {};
}

/** A tool argument an upstream wants mirrored in a header: its path through `properties` and the header's name. */
interface HeaderDeclaration {
  path: string[];
  header: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Deep enough for any real schema; a pinned schema is bounded by the manifest's own limits anyway. */
const MAX_DEPTH = 32;

/**
 * The `x-mcp-header` declarations of an input schema, reached through chains of `properties`
 * only, on string, integer and boolean properties, unique case-insensitively; the spec calls
 * any other declaration invalid, and the client then sends no header for it.
 */
export function headerDeclarations(schema: unknown): HeaderDeclaration[] {
  const found: HeaderDeclaration[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[]) => {
    if (!isJsonObject(node) || path.length > MAX_DEPTH) return;
    const header = node['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && TOKEN.test(header) && HEADER_TYPES.has(String(node.type)) && !seen.has(header.toLowerCase())) {
      seen.add(header.toLowerCase());
      found.push({ path, header });
    }
    if (isJsonObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
}

function headerText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/** The `Mcp-Param-<Name>` headers of one call: one per declared argument the call gives a value. */
export function paramHeaders(declarations: HeaderDeclaration[], args: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of declarations) {
    let value: JsonValue | undefined = args;
    for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
    const text = headerText(value);
    if (text !== undefined) headers[`mcp-param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}
