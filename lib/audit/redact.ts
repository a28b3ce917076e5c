import { canonicalJson, sha256Hex } from '../idempotency/canonical-json.ts';
import type { JsonObject, JsonSchema, JsonValue } from '../registry/json.ts';

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Replaces argument fields marked `"x-sensitive": true` in the tool's input schema by
 * `"sha256:<hex>"` of their canonical JSON, so the audit trail can prove what was sent
 * without keeping it. Follows properties, patternProperties, additionalProperties, items,
 * prefixItems, allOf/anyOf/oneOf, if/then/else and local $refs.
 */
export async function redactSensitive(args: JsonObject, schema: JsonSchema): Promise<JsonObject> {
  return replaceSensitive(args, schema, async (value) => `sha256:${await sha256Hex(canonicalJson(value))}`);
}

/** For showing arguments to people (Slack): sensitive fields become a fixed mask. */
export function maskSensitive(args: JsonObject, schema: JsonSchema): Promise<JsonObject> {
  return replaceSensitive(args, schema, () => '••••••');
}

type Replace = (value: JsonValue) => JsonValue | Promise<JsonValue>;

async function replaceSensitive(args: JsonObject, schema: JsonSchema, replace: Replace): Promise<JsonObject> {
  if (!hasSensitiveFields(schema)) return args;
  const root = isNode(schema) ? schema : {};
  return (await redactValue(args, root, root, 0, replace)) as JsonObject;
}

const sensitiveSchemas = new WeakMap<object, boolean>();

/** Whether anything in the schema is marked sensitive (lets callers skip the walk); remembered per schema. */
export function hasSensitiveFields(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  let sensitive = sensitiveSchemas.get(schema);
  if (sensitive === undefined) {
    sensitive = JSON.stringify(schema).includes('"x-sensitive":true');
    sensitiveSchemas.set(schema, sensitive);
  }
  return sensitive;
}

async function redactValue(value: JsonValue, node: SchemaNode, root: SchemaNode, depth: number, replace: Replace): Promise<JsonValue> {
  if (depth > 32) return value;
  if (node['x-sensitive'] === true) return replace(value);
  // A $ref's sibling keywords apply too (2020-12): `{"$ref": ..., "x-sensitive": true}` or properties beside it.
  const target = typeof node.$ref === 'string' && (node.$ref === '#' || node.$ref.startsWith('#/')) ? [resolveRef(root, node.$ref)] : [];
  let out = await redactParts(value, node, root, depth, replace);
  // A value may take any branch of a choice (anyOf, oneOf, if/then/else): every branch's sensitive fields are replaced.
  for (const branch of [...target, ...branchesOf(node)]) out = await redactValue(out, branch, root, depth + 1, replace);
  return out;
}

const BRANCH_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const BRANCHES = ['if', 'then', 'else'] as const;

function branchesOf(node: SchemaNode): SchemaNode[] {
  const lists = BRANCH_LISTS.flatMap((name) => (Array.isArray(node[name]) ? (node[name] as unknown[]).filter(isNode) : []));
  return [...lists, ...BRANCHES.map((name) => node[name]).filter(isNode)];
}

/** Array items (items, prefixItems, tuple items) and object members (properties, patternProperties, additionalProperties). */
async function redactParts(value: JsonValue, node: SchemaNode, root: SchemaNode, depth: number, replace: Replace): Promise<JsonValue> {
  if (Array.isArray(value)) {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
    return Promise.all(value.map((item, i) => redactWith(item, [prefix[i] ?? rest], root, depth, replace)));
  }
  if (!isNode(value)) return value;
  const properties = isNode(node.properties) ? node.properties : {};
  // Patterns are not run here: a member any sensitive pattern could cover is replaced (never shown by mistake).
  const patterns = isNode(node.patternProperties) ? Object.values(node.patternProperties) : [];
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const named = Object.hasOwn(properties, key) ? properties[key] : node.additionalProperties;
    out[key] = await redactWith(child, [named, ...patterns], root, depth, replace);
  }
  return out;
}

async function redactWith(value: JsonValue, schemas: unknown[], root: SchemaNode, depth: number, replace: Replace): Promise<JsonValue> {
  let out = value;
  for (const schema of schemas) if (isNode(schema)) out = await redactValue(out, schema, root, depth + 1, replace);
  return out;
}

function resolveRef(root: SchemaNode, ref: string): SchemaNode {
  if (ref === '#') return root;
  const keys = ref.slice(2).split('/').map((key) => decodeURIComponent(key).replaceAll('~1', '/').replaceAll('~0', '~'));
  const target = keys.reduce<unknown>((node, key) => (isNode(node) ? node[key] : undefined), root);
  return isNode(target) ? target : {};
}
