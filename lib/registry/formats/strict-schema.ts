/**
 * Whether a tool's input schema can be sent with `strict: true` (OpenAI's structured outputs):
 * only then is the model's decoding constrained to the schema, and only a subset of JSON Schema
 * is accepted there. The rules, from OpenAI's structured-outputs guide: the root is an object;
 * every object sets `additionalProperties: false` and lists all its properties in `required`
 * (optional fields are written as a union with null); only the keywords below appear; `$ref`
 * points into `$defs` (or is "#"); at most 5,000 properties, 10 levels of nesting, 1,000 enum
 * values, 120,000 characters of names and enum values. Anything else is sent with
 * `strict: false`, which OpenAI accepts for every schema (toolgate validates every call anyway).
 */
const COMMON = ['type', 'description', 'enum', 'anyOf', '$ref'];
const BY_TYPE: Record<string, string[]> = {
  object: ['properties', 'required', 'additionalProperties', '$defs'],
  array: ['items', 'minItems', 'maxItems'],
  string: ['pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: [],
  null: [],
};
const FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];
const LIMITS = { properties: 5_000, depth: 10, enumValues: 1_000, characters: 120_000 };

type Schema = Record<string, unknown>;

export function meetsStrictMode(root: unknown): boolean {
  if (!isSchema(root) || root.type !== 'object') return false;
  const totals = { properties: 0, enumValues: 0, characters: 0 };
  const defs = isSchema(root.$defs) ? root.$defs : {};

  const check = (schema: unknown, depth: number): boolean => {
    if (!isSchema(schema) || depth > LIMITS.depth) return false;
    // Strict mode has no "any value": each schema names its type(s), or alternatives, or a definition.
    if (schema.type === undefined && schema.anyOf === undefined && schema.$ref === undefined) return false;
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (!types.every((t) => typeof t === 'string' && t in BY_TYPE)) return false;
    const allowed = new Set([...COMMON, ...types.flatMap((t) => BY_TYPE[t as string])]);
    if (!Object.keys(schema).every((k) => allowed.has(k))) return false;
    if (typeof schema.$ref === 'string' && schema.$ref !== '#' && !(schema.$ref.startsWith('#/$defs/') && schema.$ref.slice(8) in defs)) return false;
    if (schema.format !== undefined && !FORMATS.includes(schema.format as string)) return false;
    if (!checkEnum(schema)) return false;
    if (types.includes('object') && !checkObject(schema, depth)) return false;
    if (schema.items !== undefined && !check(schema.items, depth + 1)) return false;
    if (schema.anyOf !== undefined && !(Array.isArray(schema.anyOf) && schema.anyOf.every((s) => check(s, depth)))) return false;
    return true;
  };

  const checkEnum = (schema: Schema): boolean => {
    if (schema.enum === undefined) return true;
    if (!Array.isArray(schema.enum)) return false;
    totals.enumValues += schema.enum.length;
    totals.characters += schema.enum.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0);
    return totals.enumValues <= LIMITS.enumValues && totals.characters <= LIMITS.characters;
  };

  const checkObject = (schema: Schema, depth: number): boolean => {
    const properties = schema.properties;
    if (!isSchema(properties) || schema.additionalProperties !== false || !Array.isArray(schema.required)) return false;
    const names = Object.keys(properties);
    const required = new Set(schema.required);
    if (required.size !== names.length || !names.every((n) => required.has(n))) return false;
    totals.properties += names.length;
    totals.characters += names.reduce((n, name) => n + name.length, 0);
    if (totals.properties > LIMITS.properties || totals.characters > LIMITS.characters) return false;
    if (schema.$defs !== undefined && (!isSchema(schema.$defs) || !Object.values(schema.$defs).every((d) => check(d, depth + 1)))) return false;
    return names.every((name) => check(properties[name], depth + 1));
  };

  return check(root, 1);
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
