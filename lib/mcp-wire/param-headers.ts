import { decodeHeaderValue, encodeHeaderValue } from './header-value.ts';
import { isPlainObject } from './json-rpc.ts';
import { headerMismatch, type WireRejection } from './rejection.ts';

/**
 * `Mcp-Param-<Name>` headers (2026-07-28): a tool's `inputSchema` may mark a string, integer or
 * boolean property with `"x-mcp-header": "<Name>"`; a client then mirrors that argument in a
 * header, and the server checks that the header is present and equal whenever the body carries
 * a value. Declarations count only on a chain of `properties` from the root.
 */

export const X_MCP_HEADER = 'x-mcp-header';
const HEADER_PREFIX = 'Mcp-Param-';
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/** One declaration: where the argument sits, the header's name as declared, the property's type. */
export interface ParamHeader {
  path: readonly string[];
  name: string;
  type: string;
}

/**
 * The declarations of a schema, or the first reason it breaks the rules (a non-token or
 * duplicate name, a non-primitive type, a declaration off the `properties` chain). Subschemas
 * under other keywords are swept too, so a misplaced declaration is reported, not ignored.
 */
export function scanParamHeaders(inputSchema: unknown): { ok: true; headers: ParamHeader[] } | { ok: false; reason: string } {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isPlainObject(node)) return undefined;
    if (Object.hasOwn(node, X_MCP_HEADER)) {
      const fault = declarationFault(node, path, reachable, seen);
      if (fault) return fault;
      headers.push({ path, name: node[X_MCP_HEADER] as string, type: node.type as string });
    }
    if (isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      for (const branch of subschemas(node[keyword], keyword)) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const reason = visit(inputSchema, [], true);
  return reason ? { ok: false, reason } : { ok: true, headers };
}

/**
 * The header check for one `tools/call`: a declared argument the body carries (not null) needs
 * its header, decoded equal to it (integers compared as numbers). Undefined when all agree.
 */
export function paramHeaderRejection(declared: readonly ParamHeader[], args: unknown, headers: Headers): WireRejection | undefined {
  for (const declaration of declared) {
    const header = `${HEADER_PREFIX}${declaration.name}`;
    const value = valueAt(args, declaration.path);
    const text = value === undefined || value === null ? undefined : primitiveText(value);
    // No value (or not a primitive: argument validation reports that): no header is expected.
    if (text === undefined) continue;
    const raw = headers.get(header);
    const where = declaration.path.join('.');
    if (raw === null) return headerMismatch('param-header-missing', header, `the body carries ${where}=${JSON.stringify(value)} but the ${header} header is absent`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return headerMismatch('param-header-invalid-encoding', header, `the ${header} header carries an invalid Base64 sentinel value`);
    const numeric = (declaration.type === 'integer' || declaration.type === 'number') && typeof value === 'number' && CANONICAL_DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== text) {
      return headerMismatch('param-header-mismatch', header, `the ${header} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`);
    }
  }
  return undefined;
}

/** The headers a client sends for one call's arguments. */
export function paramRequestHeaders(declared: readonly ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const declaration of declared) {
    const value = valueAt(args, declaration.path);
    const text = value === undefined || value === null ? undefined : primitiveText(value);
    if (text !== undefined) out[`${HEADER_PREFIX}${declaration.name}`] = encodeHeaderValue(text);
  }
  return out;
}

const UNREACHABLE_KEYWORDS = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions'];
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

function subschemas(value: unknown, keyword: string): unknown[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  return NAMED_SUBSCHEMAS.has(keyword) && isPlainObject(value) ? Object.values(value) : [value];
}

function declarationFault(node: Record<string, unknown>, path: string[], reachable: boolean, seen: Map<string, string>): string | undefined {
  const where = path.length === 0 ? '<root>' : path.join('.');
  if (!reachable || path.length === 0) return `${where}: ${X_MCP_HEADER} is only allowed on a property reached through "properties" from the root`;
  const name = node[X_MCP_HEADER];
  if (typeof name !== 'string' || !TOKEN.test(name)) return `${where}: ${X_MCP_HEADER} must be an HTTP token (letters, digits and !#$%&'*+-.^_\`|~), got ${JSON.stringify(name)}`;
  if (typeof node.type !== 'string' || !HEADER_TYPES.has(node.type)) return `${where}: ${X_MCP_HEADER} is only allowed on a string, integer or boolean property, not ${JSON.stringify(node.type ?? null)}`;
  const prior = seen.get(name.toLowerCase());
  if (prior !== undefined) return `${where}: ${X_MCP_HEADER} "${name}" repeats "${prior}" (header names are case-insensitive)`;
  seen.set(name.toLowerCase(), name);
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && !(Number.isInteger(value) && !Number.isSafeInteger(value))) return String(value);
  return undefined;
}
