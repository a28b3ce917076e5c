/**
 * Gemini function declarations accept an OpenAPI-style subset of JSON Schema. Constraints it
 * cannot express are dropped from what the model sees (toolgate still enforces the full schema
 * on every call); shapes it cannot express are refused with an error naming the keyword.
 */
export class GeminiSchemaError extends Error {
  constructor(tool: string, path: string, detail: string) {
    super(`tool "${tool}": input_schema${path} ${detail}, which Gemini function declarations cannot express; simplify the schema or use another profile`);
    this.name = 'GeminiSchemaError';
  }
}

type Schema = Record<string, unknown>;

const KEPT = ['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'default', 'items', 'minimum', 'maximum'];
const REFUSED = ['allOf', 'not', 'if', 'then', 'else', 'prefixItems', '$dynamicRef'];
const GEMINI_FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

export function toGeminiSchema(tool: string, root: unknown): Schema {
  const convert = (node: unknown, path: string, refs: string[]): Schema => {
    if (node === true || node === undefined) return {};
    if (node === false || node === null || typeof node !== 'object') throw new GeminiSchemaError(tool, path, 'has a schema that accepts nothing');
    let schema = node as Schema;
    if (typeof schema.$ref === 'string') {
      const ref = schema.$ref;
      if (refs.includes(ref)) throw new GeminiSchemaError(tool, path, `uses a recursive $ref "${ref}"`);
      const target = ref.startsWith('#/') ? ref.slice(2).split('/').reduce<unknown>((n, k) => (n as Schema | undefined)?.[k], root) : undefined;
      if (target === undefined) throw new GeminiSchemaError(tool, path, `uses a $ref "${ref}" that does not resolve`);
      const { $ref: _ref, ...siblings } = schema;
      return convert({ ...(target as Schema), ...siblings }, path, [...refs, ref]);
    }
    for (const keyword of REFUSED) if (keyword in schema) throw new GeminiSchemaError(tool, `${path}.${keyword}`, `uses "${keyword}"`);
    if ('oneOf' in schema) schema = { ...schema, anyOf: schema.oneOf };
    if ('const' in schema) schema = { ...schema, enum: [schema.const] };

    const out: Schema = {};
    for (const key of KEPT) if (key in schema) out[key] = schema[key];
    applyType(out, schema.type, tool, path);
    if (Array.isArray(out.enum) && out.enum.some((v) => typeof v !== 'string')) {
      // Gemini enums are strings only: say the allowed values in words instead.
      out.description = `${out.description ? `${String(out.description)} ` : ''}Allowed values: ${out.enum.map((v) => JSON.stringify(v)).join(', ')}.`;
      delete out.enum;
    } else if (Array.isArray(out.enum) && out.type === undefined) {
      out.type = 'string';
    }
    if (typeof out.format === 'string' && !(GEMINI_FORMATS[String(out.type)] ?? []).includes(out.format)) delete out.format;
    if (out.properties && typeof out.properties === 'object') {
      out.properties = Object.fromEntries(Object.entries(out.properties as Schema).map(([k, v]) => [k, convert(v, `${path}.properties.${k}`, refs)]));
    }
    if ('items' in out) out.items = convert(out.items, `${path}.items`, refs);
    if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((s, i) => convert(s, `${path}.anyOf[${i}]`, refs));
    return out;
  };
  return convert(root, '', []);
}

/** ["string", "null"] → type string + nullable; several real types → anyOf. */
function applyType(out: Schema, type: unknown, tool: string, path: string): void {
  if (!Array.isArray(type)) return;
  const real = type.filter((t) => t !== 'null');
  if (real.length < type.length) out.nullable = true;
  if (real.length === 1) out.type = real[0];
  else if (real.length === 0) throw new GeminiSchemaError(tool, `${path}.type`, 'only allows null');
  else {
    delete out.type;
    out.anyOf = real.map((t) => ({ type: t }));
  }
}
