import { canonicalJson, sha256Hex } from '../idempotency/canonical-json.ts';
import type { JsonObject, JsonSchema, JsonValue } from '../registry/json.ts';

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Replaces argument fields marked `"x-sensitive": true` in the tool's input schema by
 * `"sha256:<hex>"` of their canonical JSON, so the audit trail can prove what was sent
 * without keeping it. Follows properties, items and local $refs.
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
  const resolved = typeof node.$ref === 'string' && node.$ref.startsWith('#/') ? resolveRef(root, node.$ref) : node;
  if (resolved['x-sensitive'] === true) return replace(value);
  if (Array.isArray(value) && isNode(resolved.items)) {
    return Promise.all(value.map((item) => redactValue(item, resolved.items as SchemaNode, root, depth + 1, replace)));
  }
  if (isNode(value) && !Array.isArray(value) && isNode(resolved.properties)) {
    const properties = resolved.properties as Record<string, unknown>;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const childSchema = properties[key];
      out[key] = isNode(childSchema) ? await redactValue(child, childSchema, root, depth + 1, replace) : child;
    }
    return out;
  }
  return value;
}

function resolveRef(root: SchemaNode, ref: string): SchemaNode {
  const target = ref.slice(2).split('/').reduce<unknown>((node, key) => (isNode(node) ? node[key] : undefined), root);
  return isNode(target) ? target : {};
}
