import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { JsonSchema } from '../registry/json.ts';
import { schemaValueAt, valueAt } from './json-pointer.ts';
import { allowedPropertiesHint, describeViolation, type RawViolation } from './messages.ts';
import { lintSchema } from './schema-lint.ts';
import { finishViolations } from './violations.ts';
import { InvalidSchemaError, type CompiledSchema, type SchemaValidator } from './validator.ts';

/** The unit names the offending property only in its text: `Property "x" does not ...`. */
function quotedProperty(unit: OutputUnit): string | undefined {
  return /(?:property|Property) "((?:[^"\\]|\\.)*)"/.exec(unit.error)?.[1];
}

function toRawViolation(unit: OutputUnit, schema: JsonSchema, data: unknown): RawViolation {
  const pointer = unit.instanceLocation.replace(/^#/, '');
  const named = unit.keyword === 'required' || unit.keyword === 'additionalProperties' || unit.keyword === 'unevaluatedProperties';
  return {
    keyword: unit.keyword,
    pointer,
    expected: schemaValueAt(schema, unit.keywordLocation),
    actual: valueAt(data, pointer),
    property: named ? quotedProperty(unit) : undefined,
    fallback: unit.error,
  };
}

/** The interpreted engine: no eval or new Function, so it runs where code generation is refused. */
export function createCfworkerValidator(): SchemaValidator {
  return {
    engine: 'cfworker',
    compile(schema: JsonSchema): CompiledSchema {
      const problems = lintSchema(schema);
      if (problems.length > 0) throw new InvalidSchemaError(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
      const validator = new Validator(schema as Schema | boolean, '2020-12', false);
      return (data) => {
        const result = validator.validate(data);
        if (result.valid) return { valid: true };
        const units = result.errors;
        const raw = units.map((u) => toRawViolation(u, schema, data));
        return finishViolations(raw, units.map((u) => u.keywordLocation), (v, i) => {
          const described = describeViolation(v);
          const parent = schemaValueAt(schema, units[i].keywordLocation.replace(/\/[^/]*$/, ''));
          const hint = v.keyword === 'additionalProperties' ? allowedPropertiesHint(parent) : '';
          return { ...described, message: described.message + hint, detail: described.detail + hint };
        });
      };
    },
  };
}
