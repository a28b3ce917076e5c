import { Validator, type Schema } from '@cfworker/json-schema';
import type { JsonSchema } from '../registry/json.ts';
import { toRawViolation, unitLocations, type Documents } from './cfworker-units.ts';
import { schemaValueAt } from './json-pointer.ts';
import { withinPatternBudget, withLinearRegExp } from './linear-patterns.ts';
import { allowedPropertiesHint, describeViolation } from './messages.ts';
import { assertSchemaLintClean, lintSchema } from './schema-lint.ts';
import { finishViolations } from './violations.ts';
import { InvalidSchemaError, type CompiledSchema, type EngineOptions, type SchemaValidator } from './validator.ts';

/** @cfworker/json-schema resolves refs when validating; a bad document shows up here or not at all. */
function buildValidator(schema: JsonSchema, options: EngineOptions): Validator {
  try {
    const validator = new Validator(schema as Schema | boolean, '2020-12', false);
    for (const resource of options.schemas ?? []) validator.addSchema(resource.schema as Schema, resource.uri);
    return validator;
  } catch (error) {
    throw new InvalidSchemaError((error as Error).message);
  }
}

/** The interpreted engine: no eval or new Function, so it runs where code generation is refused. */
export function createCfworkerValidator(options: EngineOptions = {}): SchemaValidator {
  const knownUris = (options.schemas ?? []).map((s) => s.uri);
  // The messages quote schema values; refs into registered documents are followed there.
  const documents: Documents = new Map((options.schemas ?? []).map((s) => [s.uri, s.schema]));
  return {
    engine: 'cfworker',
    check: (schema: JsonSchema) => lintSchema(schema, { knownUris }),
    compile(schema: JsonSchema): CompiledSchema {
      // Without the lint this engine would accept a broken schema silently (or throw while
      // validating an unresolvable $ref), so it is on unless a measuring harness turns it off.
      if (options.lint !== false) assertSchemaLintClean(schema, { knownUris });
      const validator = buildValidator(schema, options);
      return (data) => withinPatternBudget(() => {
        // Patterns on the linear-time matcher for the span of this (synchronous) validation.
        const result = withLinearRegExp(() => validator.validate(data));
        if (result.valid) return { valid: true };
        const units = result.errors;
        const locations = unitLocations(units);
        const raw = units.map((_, i) => toRawViolation(units, i, locations[i], { schema, data, documents }));
        return finishViolations(raw, locations, (v, i) => {
          const described = describeViolation(v);
          const parent = schemaValueAt(schema, locations[i].replace(/\/[^/]*$/, ''), documents);
          const hint = v.keyword === 'additionalProperties' ? allowedPropertiesHint(parent) : '';
          return { ...described, message: described.message + hint, detail: described.detail + hint };
        });
      });
    },
  };
}
