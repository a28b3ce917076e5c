import { isJsonObject, type JsonObject, type JsonSchema } from '../../registry/json.ts';

/**
 * A tool's input schema as CEL sees `args`: integer → int, number → double, string, boolean →
 * bool, arrays of one such type → list<…>, objects with properties → nested fields; anything
 * else (unions, $ref, anyOf, no type) → dyn, judged at evaluation. Fields are declared whether
 * the schema requires them or not: naming an argument the tool does not have is a type error
 * at publish; reading an absent optional one is an error at evaluation (write `has(args.x)`).
 */
export type CelField = string | CelObject;
export interface CelObject {
  [field: string]: CelField;
}

const MAX_DEPTH = 8;

export function celSchemaOf(schema: JsonSchema, depth = 0): CelObject {
  const properties = typeof schema === 'object' && isJsonObject(schema.properties) ? schema.properties : {};
  const fields: CelObject = {};
  for (const [name, property] of Object.entries(properties)) fields[name] = isJsonObject(property) ? celFieldOf(property, depth + 1) : 'dyn';
  return fields;
}

function celFieldOf(schema: JsonObject, depth: number): CelField {
  switch (schema.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'array': {
      const items = isJsonObject(schema.items) ? celFieldOf(schema.items, depth + 1) : 'dyn';
      return `list<${typeof items === 'string' ? items : 'dyn'}>`;
    }
    case 'object':
      return depth < MAX_DEPTH && isJsonObject(schema.properties) ? celSchemaOf(schema, depth) : 'map<string, dyn>';
    default:
      return 'dyn';
  }
}

/**
 * The arguments as CEL values of those types: CEL's int is a 64-bit integer (a BigInt here),
 * so every value the schema calls an integer becomes one; the rest stay as JSON gave them.
 * Validation already ran, so a value has its schema's type.
 */
export function celArguments(value: unknown, field: CelField): unknown {
  if (field === 'int') return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
  if (typeof field === 'string') {
    if (field === 'list<int>' && Array.isArray(value)) return value.map((item) => celArguments(item, 'int'));
    return value;
  }
  if (!isJsonObject(value)) return value;
  const converted: Record<string, unknown> = { ...value };
  for (const [name, inner] of Object.entries(field)) if (name in value) converted[name] = celArguments(value[name], inner);
  return converted;
}
