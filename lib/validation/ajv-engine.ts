import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { JsonSchema } from '../registry/json.ts';
import { allowedPropertiesHint, describeViolation, type RawViolation } from './messages.ts';
import { finishViolations } from './violations.ts';
import { InvalidSchemaError, type CompiledSchema, type SchemaValidator } from './validator.ts';

// ajv-formats is CommonJS: depending on the loader the plugin is the module or its default.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((formatsPlugin as unknown as { default?: FormatsPlugin }).default ??
  formatsPlugin) as unknown as FormatsPlugin;

function toRawViolation(error: ErrorObject): RawViolation {
  const params = error.params as Record<string, unknown>;
  const property = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as
    | string
    | undefined;
  return {
    keyword: error.keyword,
    pointer: error.instancePath,
    expected: error.schema,
    actual: error.data,
    property,
    fallback: error.message ?? `failed "${error.keyword}"`,
  };
}

/** The compiled engine: fast, but needs code generation (refused on Cloudflare Workers). */
export function createAjvValidator(): SchemaValidator {
  // verbose: errors carry the schema value and the data, which the messages quote.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, logger: false });
  addFormats(ajv);
  return {
    engine: 'ajv',
    compile(schema: JsonSchema): CompiledSchema {
      let validate;
      try {
        validate = ajv.compile(schema as object | boolean as never);
      } catch (error) {
        throw new InvalidSchemaError((error as Error).message);
      }
      return (data) => {
        if (validate(data)) return { valid: true };
        const errors = validate.errors ?? [];
        const raw = errors.map(toRawViolation);
        return finishViolations(raw, errors.map((e) => e.schemaPath), (v, i) => {
          const described = describeViolation(v);
          const hint = v.keyword === 'additionalProperties' ? allowedPropertiesHint(errors[i].parentSchema) : '';
          return { ...described, message: described.message + hint, detail: described.detail + hint };
        });
      };
    },
  };
}
