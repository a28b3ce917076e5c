import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { JsonSchema } from '../registry/json.ts';
import { foldedAjvErrors } from './ajv-folding.ts';
import { linearRegExpEngine, withinPatternBudget } from './linear-patterns.ts';
import { allowedPropertiesHint, describeViolation, type RawViolation } from './messages.ts';
import { assertSchemaLintClean, lintSchema } from './schema-lint.ts';
import { useLinearUniqueItems } from './unique-items.ts';
import { isUrl } from './url-format.ts';
import { finishViolations, tooManyProblems } from './violations.ts';
import { InvalidSchemaError, type CompiledSchema, type EngineOptions, type SchemaValidator, type ValidationOutcome } from './validator.ts';

// ajv-formats is CommonJS: depending on the loader the plugin is the module or its default.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((formatsPlugin as unknown as { default?: FormatsPlugin }).default ??
  formatsPlugin) as unknown as FormatsPlugin;

/** ajv's keyword names where they differ from the eval-free engine's, so both report alike. */
function keywordOf(error: ErrorObject): string {
  if (error.keyword === 'false schema') return 'false';
  // `items: false` after prefixItems caps the length: reported as the maxItems it amounts to.
  if (error.keyword === 'items' && error.schema === false) return 'maxItems';
  return error.keyword;
}

function toRawViolation(error: ErrorObject): RawViolation {
  const params = error.params as Record<string, unknown>;
  const property = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as
    | string
    | undefined;
  const keyword = keywordOf(error);
  return {
    keyword,
    pointer: error.instancePath,
    expected: keyword === 'maxItems' && error.keyword === 'items' ? params.limit : error.schema,
    actual: error.data,
    property,
    trigger: error.keyword === 'dependentRequired' ? (params.property as string) : undefined,
    propertyName: error.propertyName,
    fallback: error.message ?? `failed "${error.keyword}"`,
  };
}

function registerSchemas(ajv: Ajv2020, options: EngineOptions): void {
  for (const { uri, schema } of options.schemas ?? []) {
    try {
      ajv.addSchema(schema as object, uri);
    } catch (error) {
      throw new InvalidSchemaError(`${uri}: ${(error as Error).message}`);
    }
  }
}

/**
 * ajv keeps every compiled schema under its root `$id`, so the next manifest version's copy
 * (a new object, same `$id`) would be refused as a duplicate; the eval-free engine has no such
 * registry. Forget the earlier copy (compiled validators keep working), but never a meta-schema
 * or a registered document: one tenant's schema must not unseat what every tenant relies on,
 * so a clash with those stays an error.
 */
function forgetEarlierCopy(ajv: Ajv2020, schema: JsonSchema, reserved: ReadonlySet<string>): void {
  const id = typeof schema === 'object' ? schema.$id : undefined;
  if (typeof id !== 'string') return;
  const key = id.replace(/#$/, '');
  if (!reserved.has(key)) ajv.removeSchema(key);
}

function violationsOf(schema: JsonSchema, errors: ErrorObject[]): ValidationOutcome {
  return finishViolations({
    count: errors.length,
    keyword: (i) => keywordOf(errors[i]),
    expected: (i) => errors[i].schema,
    folded: foldedAjvErrors(schema, errors),
    raw: (i) => toRawViolation(errors[i]),
    describe: (v, i) => {
      const described = describeViolation(v);
      const hint = v.keyword === 'additionalProperties' ? allowedPropertiesHint(errors[i].parentSchema) : '';
      return { ...described, message: described.message + hint, detail: described.detail + hint };
    },
  });
}

/** Validates; a stack overflow (arguments nested past what a recursive schema can follow) is a violation, not a crash. */
function validateWith(validate: ValidateFunction, schema: JsonSchema, data: unknown): ValidationOutcome {
  try {
    if (validate(data)) return { valid: true };
  } catch (error) {
    if (error instanceof RangeError) return tooManyProblems();
    throw error;
  }
  return violationsOf(schema, validate.errors ?? []);
}

/** The compiled engine: fast, but needs code generation (refused on Cloudflare Workers). */
export function createAjvValidator(options: EngineOptions = {}): SchemaValidator {
  // verbose: errors carry the schema value and the data, which the messages quote.
  // ownProperties: without it an argument named "constructor" or "toString" counts as present
  // (inherited from Object.prototype), unlike in the eval-free engine and JSON Schema.
  // code.regExp: patterns run on the linear-time matcher, so no argument can stall the process.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, logger: false, ownProperties: true, code: { regExp: linearRegExpEngine } });
  addFormats(ajv);
  ajv.addFormat('url', isUrl);
  useLinearUniqueItems(ajv);
  registerSchemas(ajv, options);
  const knownUris = (options.schemas ?? []).map((s) => s.uri);
  const reserved = new Set([...Object.keys(ajv.schemas), ...Object.keys(ajv.refs), ...knownUris]);
  return {
    engine: 'ajv',
    // The lint, not ajv's meta-schema: compiling the draft 2020-12 meta-schema costs ~80 ms on a
    // cold start, and the same checks on both engines give the same problems everywhere.
    check: (schema: JsonSchema) => lintSchema(schema, { knownUris }),
    compile(schema: JsonSchema): CompiledSchema {
      // The same lint as the eval-free engine, so a schema is refused (with the same paths)
      // whichever engine the runtime picked.
      if (options.lint !== false) assertSchemaLintClean(schema, { knownUris });
      let validate: ValidateFunction;
      try {
        forgetEarlierCopy(ajv, schema, reserved);
        validate = ajv.compile(schema as object | boolean as never);
      } catch (error) {
        throw new InvalidSchemaError((error as Error).message);
      }
      return (data) => withinPatternBudget(() => validateWith(validate, schema, data));
    },
  };
}
