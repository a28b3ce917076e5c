/** JSON values as they cross the wire: what arguments, results and manifests are made of. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema document (draft 2020-12). Kept loose on purpose: schemas are data. */
export type JsonSchema = { [key: string]: unknown } | boolean;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
