import { decodeHeaderValue, encodeHeaderValue, stripOws } from './header-value.ts';
import { isPlainObject } from './json-rpc.ts';
import { headerMismatch, type WireRejection } from './rejection.ts';

/**
 * The standard request headers of the 2026-07-28 Streamable HTTP transport, which let proxies
 * route a request without reading its body: `MCP-Protocol-Version` (the envelope's revision),
 * `Mcp-Method` (the body's method) and, for methods that name a thing, `Mcp-Name`. Required on
 * every modern request and checked against the body: a header that disagrees is a 400 (-32020).
 */

/** The body field `Mcp-Name` mirrors, per method (the core methods, and the Tasks extension's). */
export const MCP_NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The standard headers of one request, with the whitespace HTTP allows around values removed. */
export interface StandardHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

export function readStandardHeaders(headers: Headers): StandardHeaders {
  const read = (name: string) => {
    const value = headers.get(name);
    return value === null ? undefined : stripOws(value);
  };
  return { protocolVersion: read('mcp-protocol-version'), method: read('mcp-method'), name: read('mcp-name') };
}

/** Which body field `Mcp-Name` mirrors for `method` and the string it holds there (undefined when absent or not a string). */
export function mcpNameSource(method: string, params: unknown): { field: 'name' | 'uri' | 'taskId'; value: string | undefined } | undefined {
  if (!Object.hasOwn(MCP_NAME_SOURCE, method)) return undefined;
  const field = MCP_NAME_SOURCE[method];
  const value = isPlainObject(params) ? params[field] : undefined;
  return { field, value: typeof value === 'string' ? value : undefined };
}

/**
 * The presence half of the standard-header check, for a modern request (the classifier already
 * compared the version and method headers it found): both headers present, in the spec's order,
 * and `Mcp-Name` present, decodable and equal to the body's name, URI or task id.
 */
export function standardHeaderRejection(headers: StandardHeaders, request: { method: string; params?: unknown; version?: string }): WireRejection | undefined {
  if (headers.protocolVersion === undefined) {
    const body = request.version === undefined ? 'the body carries a modern per-request envelope but the required MCP-Protocol-Version header is absent' : `the body envelope names protocol version ${request.version} but the required MCP-Protocol-Version header is absent`;
    return headerMismatch('version-header-missing', '(missing)', body);
  }
  if (headers.method === undefined) return headerMismatch('method-header-missing', '(missing)', `the body names method ${request.method} but the required Mcp-Method header is absent`);
  const source = mcpNameSource(request.method, request.params);
  if (!source) return undefined;
  if (headers.name === undefined) {
    if (source.value === undefined) return undefined;
    return headerMismatch('name-header-missing', '(missing)', `the body carries params.${source.field}=${JSON.stringify(source.value)} but the required Mcp-Name header is absent`);
  }
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) return headerMismatch('name-header-invalid-encoding', headers.name, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (source.value !== undefined && decoded !== source.value) {
    return headerMismatch('name-header-mismatch', headers.name, `the body carries params.${source.field}=${JSON.stringify(source.value)} but the Mcp-Name header names ${JSON.stringify(decoded)}`);
  }
  return undefined;
}

/** The standard headers a client sends with a modern request. */
export function standardRequestHeaders(version: string, method: string, params?: unknown): Record<string, string> {
  const name = mcpNameSource(method, params)?.value;
  return { 'MCP-Protocol-Version': version, 'Mcp-Method': method, ...(name !== undefined ? { 'Mcp-Name': encodeHeaderValue(name) } : {}) };
}
