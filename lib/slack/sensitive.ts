import type { JsonObject, JsonSchema, JsonValue } from '../registry/json.ts';

/** What a hidden value looks like in a Slack message. */
export const MASK = '••••••';

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The property names marked `"x-sensitive": true` anywhere in a tool's input schema (following
 * properties, items, combinators and local $refs), for `sensitiveFields`.
 */
export function sensitiveFieldNames(schema: JsonSchema): string[] {
  const root = isNode(schema) ? schema : {};
  const names = new Set<string>();
  collect(root, root, names, new Set());
  return [...names];
}

function collect(node: SchemaNode, root: SchemaNode, names: Set<string>, seen: Set<SchemaNode>): void {
  const resolved = resolve(node, root);
  if (seen.has(resolved)) return;
  seen.add(resolved);
  if (isNode(resolved.properties)) {
    for (const [name, child] of Object.entries(resolved.properties)) {
      if (!isNode(child)) continue;
      if (child['x-sensitive'] === true || resolve(child, root)['x-sensitive'] === true) names.add(name);
      collect(child, root, names, seen);
    }
  }
  for (const child of children(resolved)) collect(child, root, names, seen);
}

/** Sub-schemas that describe values nested in (or alternative to) this one. */
function children(node: SchemaNode): SchemaNode[] {
  const out: unknown[] = [node.items, node.additionalProperties, node.not, node.if, node.then, node.else];
  for (const key of ['prefixItems', 'allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[key])) out.push(...(node[key] as unknown[]));
  if (Array.isArray(node.items)) out.push(...node.items);
  if (isNode(node.patternProperties)) out.push(...Object.values(node.patternProperties));
  return out.filter(isNode);
}

function resolve(node: SchemaNode, root: SchemaNode): SchemaNode {
  if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) return node;
  const path = node.$ref.slice(1).split('/').filter(Boolean).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const target = path.reduce<unknown>((at, key) => (isNode(at) ? at[key] : undefined), root);
  return isNode(target) ? target : node;
}

/**
 * A copy of the arguments with the value of every property named in `names` replaced by MASK,
 * at any depth. Matching by name everywhere errs towards hiding: a Slack channel is a wider
 * audience than the audit trail, and hiding one harmless value costs the reviewer little.
 */
export function maskSensitiveFields(args: JsonObject, names: readonly string[]): JsonObject {
  if (names.length === 0) return args;
  return maskValue(args, new Set(names), 0) as JsonObject;
}

function maskValue(value: JsonValue, names: Set<string>, depth: number): JsonValue {
  // Deeper than any real tool call: stop walking rather than risk showing what lies below.
  if (depth > 64) return MASK;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, names, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) out[key] = names.has(key) ? MASK : maskValue(child, names, depth + 1);
  return out;
}
