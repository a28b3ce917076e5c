import { Ajv } from 'ajv/dist/ajv.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import type { JsonSchema } from '../registry/json.ts';
import { foldedAjvErrors } from './ajv-folding.ts';
import { linearRegExpEngine, withinPatternBudget } from './linear-patterns.ts';
import { allowedPropertiesHint, describeViolation, type RawViolation } from './messages.ts';
import { DRAFT_URIS, draftOf, draftToCompile, type SchemaDraft } from './schema-drafts.ts';
import { assertSchemaLintClean, lintSchema } from './schema-lint.ts';
import { useExactMultipleOf } from './multiple-of.ts';
import { useLinearUniqueItems } from './unique-items.ts';
import { STRING_FORMATS } from './formats.ts';
import { finishViolations, tooManyProblems } from './violations.ts';
import { createCfworkerValidator } from './cfworker-engine.ts';
import { tieredValidator } from './tiered.ts';
import { InvalidSchemaError, type CompiledSchema, type CompileOptions, type EngineOptions, type SchemaValidator, type ValidationOutcome } from './validator.ts';

/** Any of ajv's classes: they share the core's API. */
export type AjvCore = Ajv | Ajv2019 | Ajv2020;

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

/**
 * ajv's vocabulary is per class, not per `$schema`: one instance per class, each knowing its
 * drafts' meta-schemas. Draft-06 is draft-07 without if/then/else, so the draft-07 class serves
 * both (with the draft-06 meta-schema added).
 */
type AjvFamily = 'draft-07' | '2019-09' | '2020-12';
const familyOf = (draft: SchemaDraft): AjvFamily => (draft === 'draft-06' ? 'draft-07' : draft);

// verbose: errors carry the schema value and the data, which the messages quote.
// ownProperties: without it an argument named "constructor" or "toString" counts as present
// (inherited from Object.prototype), unlike in the eval-free engine and JSON Schema.
// code.regExp: patterns run on the linear-time matcher, so no argument can stall the process.
// validateSchema: false, as compile() checks a schema against its meta-schema itself, unless it
// passed the lint at publish: compiling the 2020-12 meta-schema costs 130-200 ms on a cold start.
const AJV_OPTIONS = { allErrors: true, verbose: true, strict: false, logger: false as const, ownProperties: true, validateSchema: false, code: { regExp: linearRegExpEngine } };

function newAjv(family: AjvFamily): AjvCore {
  if (family === '2020-12') return new Ajv2020(AJV_OPTIONS);
  if (family === '2019-09') return new Ajv2019(AJV_OPTIONS);
  // Before 2019-09 a `$ref` replaces its schema: the keywords beside it are ignored.
  const ajv = new Ajv({ ...AJV_OPTIONS, ignoreKeywordsWithRef: true });
  ajv.addMetaSchema(draft06MetaSchema);
  return ajv;
}

/**
 * Registered documents go to the instances of their own draft; one that declares none, to
 * every instance (a shared definition serves schemas of any draft).
 */
function registerSchemas(ajv: AjvCore, family: AjvFamily, options: EngineOptions): void {
  for (const { uri, schema } of options.schemas ?? []) {
    const declares = typeof schema === 'object' && schema.$schema !== undefined;
    const draft = draftOf(schema);
    if (declares && (draft === undefined || familyOf(draft) !== family)) continue;
    try {
      assertMetaSchemaValid(ajv, schema);
      ajv.addSchema(schema as object, uri);
    } catch (error) {
      throw new InvalidSchemaError(`${uri}: ${(error as Error).message}`);
    }
  }
}

/** One ajv instance of a family, set up as every validation needs it, and the keys no tenant schema may take. */
interface AjvInstance {
  ajv: AjvCore;
  reserved: ReadonlySet<string>;
}

function newInstance(family: AjvFamily, options: EngineOptions, knownUris: readonly string[]): AjvInstance {
  const ajv = newAjv(family);
  // The eval-free engine's checks, so both engines accept and refuse the same strings.
  for (const [name, check] of Object.entries(STRING_FORMATS)) ajv.addFormat(name, check);
  useLinearUniqueItems(ajv);
  useExactMultipleOf(ajv);
  registerSchemas(ajv, family, options);
  return { ajv, reserved: new Set([...Object.keys(ajv.schemas), ...Object.keys(ajv.refs), ...knownUris]) };
}

/**
 * The schema as ajv looks its `$schema` up: spelled as ajv registered the meta-schema (a copy of
 * the root when it was spelled otherwise, e.g. https for draft-07, or 2020-12 with a "#").
 */
function withCanonicalSchemaUri(schema: JsonSchema, draft: SchemaDraft): JsonSchema {
  if (typeof schema !== 'object' || schema.$schema === undefined || schema.$schema === DRAFT_URIS[draft]) return schema;
  return { ...schema, $schema: DRAFT_URIS[draft] };
}

/**
 * ajv keeps every compiled schema under its root `$id`, so the next manifest version's copy
 * (a new object, same `$id`) would be refused as a duplicate; the eval-free engine has no such
 * registry. Forget the earlier copy (compiled validators keep working), but never a meta-schema
 * or a registered document: one tenant's schema must not unseat what every tenant relies on,
 * so a clash with those stays an error.
 */
function forgetEarlierCopy(ajv: AjvCore, schema: JsonSchema, reserved: ReadonlySet<string>): void {
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

/** ajv's own check of a schema against its draft's meta-schema (what `validateSchema: true` would do in compile). */
function assertMetaSchemaValid(ajv: AjvCore, schema: JsonSchema): void {
  if (ajv.validateSchema(schema as object | boolean as never) !== true) throw new InvalidSchemaError(`schema is invalid: ${ajv.errorsText(ajv.errors)}`);
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
  const knownUris = (options.schemas ?? []).map((s) => s.uri);
  // Made on first use: most gateways only ever meet one or two drafts.
  const instances = new Map<AjvFamily, AjvInstance>();
  const instanceFor = (family: AjvFamily) => {
    let instance = instances.get(family);
    if (!instance) instances.set(family, (instance = newInstance(family, options, knownUris)));
    return instance;
  };
  // The eval-free engine answers a checked schema's first calls while ajv compiles (tiered.ts).
  let interpreted: SchemaValidator | undefined;
  const compileGenerated = (schema: JsonSchema, checked: boolean): CompiledSchema => {
    const draft = draftToCompile(schema, options.defaultDraft);
    const { ajv, reserved } = instanceFor(familyOf(draft));
    let validate: ValidateFunction;
    try {
      const canonical = withCanonicalSchemaUri(schema, draft);
      if (!checked) assertMetaSchemaValid(ajv, canonical);
      forgetEarlierCopy(ajv, schema, reserved);
      validate = ajv.compile(canonical as object | boolean as never);
    } catch (error) {
      throw new InvalidSchemaError((error as Error).message);
    }
    return (data) => withinPatternBudget(() => validateWith(validate, schema, data));
  };
  return {
    engine: 'ajv',
    // The lint, not ajv's meta-schema: compiling the draft 2020-12 meta-schema costs ~80 ms on a
    // cold start, and the same checks on both engines give the same problems everywhere.
    check: (schema: JsonSchema) => lintSchema(schema, { knownUris, defaultDraft: options.defaultDraft }),
    compile(schema: JsonSchema, compileOptions: CompileOptions = {}): CompiledSchema {
      // The same lint as the eval-free engine, so a schema is refused (with the same paths)
      // whichever engine the runtime picked; it also refuses a `$schema` naming no known draft.
      // A schema that passed it at publish (`checked`) skips it, and ajv's meta-schema with it.
      const checked = compileOptions.checked === true;
      if (options.lint !== false && !checked) assertSchemaLintClean(schema, { knownUris, defaultDraft: options.defaultDraft });
      if (!checked || options.tiered === false) return compileGenerated(schema, checked);
      interpreted ??= createCfworkerValidator(options);
      let first: CompiledSchema;
      try {
        first = interpreted.compile(schema, compileOptions);
      } catch {
        return compileGenerated(schema, true); // ajv's own verdict on a schema the eval-free engine refuses
      }
      return tieredValidator(first, () => compileGenerated(schema, true));
    },
  };
}
