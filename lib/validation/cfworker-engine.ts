import { Validator, type OutputUnit, type Schema, type SchemaDraft as LibraryDraft } from '@cfworker/json-schema';
import type { JsonSchema } from '../registry/json.ts';
import { foldedUnits, toRawViolation, unitLocations, type Documents, type UnitContext } from './cfworker-units.ts';
import { schemaValueAt } from './json-pointer.ts';
import { withinPatternBudget, withLinearRegExp } from './linear-patterns.ts';
import { allowedPropertiesHint, describeViolation } from './messages.ts';
import { draftView } from './draft-view.ts';
// The format checks both engines share (amends the library's table, which every Validator reads).
import './formats.ts';
import { draftToCompile, type SchemaDraft } from './schema-drafts.ts';
import { assertSchemaLintClean, lintSchema } from './schema-lint.ts';
import { finishViolations, REJECTING_KEYWORDS, tooManyProblems, type RawReport } from './violations.ts';
import { InvalidSchemaError, type CompiledSchema, type CompileOptions, type EngineOptions, type SchemaValidator } from './validator.ts';

/** The library's name for a draft: it has no draft-06 mode, and draft-07's rules are draft-06's plus if/then/else. */
const LIBRARY_DRAFTS: Readonly<Record<SchemaDraft, LibraryDraft>> = { 'draft-06': '7', 'draft-07': '7', '2019-09': '2019-09', '2020-12': '2020-12' };

/**
 * @cfworker/json-schema resolves refs when validating; a bad document shows up here or not at all.
 * `shortCircuit` stops at the first failure of each keyword (what the library calls it).
 */
function buildValidator(schema: JsonSchema, options: EngineOptions, shortCircuit = false): Validator {
  const draft = draftToCompile(schema, options.defaultDraft);
  try {
    const validator = new Validator(draftView(schema, draft) as Schema | boolean, LIBRARY_DRAFTS[draft], shortCircuit);
    for (const resource of options.schemas ?? []) validator.addSchema(resource.schema as Schema, resource.uri);
    return validator;
  } catch (error) {
    throw new InvalidSchemaError((error as Error).message);
  }
}

type OutputUnitsResult = ReturnType<Validator['validate']>;

/**
 * The library's result, or undefined when it overflowed the stack: it gathers a subschema's
 * errors with `errors.push(...inner)`, which throws a RangeError past ~100,000 of them (an
 * array of 100,000 wrong items).
 */
function runValidator(validator: Validator, data: unknown): OutputUnitsResult | undefined {
  try {
    // Patterns on the linear-time matcher for the span of this (synchronous) validation.
    return withLinearRegExp(() => validator.validate(data));
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The raw report finishViolations reads, over the library's output units. */
function unitReport(units: readonly OutputUnit[], context: UnitContext): RawReport {
  const locations = unitLocations(units);
  // 100,000 rejected properties share one location: look its schema value up once.
  const expectedAt = new Map<string, unknown>();
  const expected = (location: string) => {
    if (!expectedAt.has(location)) expectedAt.set(location, schemaValueAt(context.schema, location, context.documents));
    return expectedAt.get(location);
  };
  return {
    count: units.length,
    keyword: (i) => units[i].keyword,
    expected: (i) => (units[i].keyword === 'false' ? false : expected(units[i].keywordLocation)),
    // A property rejected by `additionalProperties: false` is reported twice: the rejection, then
    // the `false` schema it met at the property, right after it.
    repeatsPrevious: (i) => {
      const previous = units[i - 1];
      if (units[i].keyword !== 'false' || !previous || !REJECTING_KEYWORDS.has(previous.keyword)) return false;
      return expected(previous.keywordLocation) === false && units[i].instanceLocation.startsWith(`${previous.instanceLocation}/`);
    },
    folded: foldedUnits(units, locations),
    raw: (i) => toRawViolation(units, i, locations[i], context),
    describe: (v, i) => {
      const described = describeViolation(v);
      const parent = () => schemaValueAt(context.schema, locations[i].replace(/\/[^/]*$/, ''), context.documents);
      const hint = v.keyword === 'additionalProperties' ? allowedPropertiesHint(parent()) : '';
      return { ...described, message: described.message + hint, detail: described.detail + hint };
    },
  };
}

/** The interpreted engine: no eval or new Function, so it runs where code generation is refused. */
export function createCfworkerValidator(options: EngineOptions = {}): SchemaValidator {
  const knownUris = (options.schemas ?? []).map((s) => s.uri);
  // The messages quote schema values; refs into registered documents are followed there.
  const documents: Documents = new Map((options.schemas ?? []).map((s) => [s.uri, s.schema]));
  return {
    engine: 'cfworker',
    check: (schema: JsonSchema) => lintSchema(schema, { knownUris, defaultDraft: options.defaultDraft }),
    compile(schema: JsonSchema, compileOptions: CompileOptions = {}): CompiledSchema {
      // Without the lint this engine would accept a broken schema silently (or throw while
      // validating an unresolvable $ref), so it is on unless a measuring harness turns it off or
      // the schema passed it at publish (`checked`).
      if (options.lint !== false && !compileOptions.checked) assertSchemaLintClean(schema, { knownUris, defaultDraft: options.defaultDraft });
      const validator = buildValidator(schema, options);
      let firstProblems: Validator | undefined;
      return (data) => withinPatternBudget(() => {
        const context = { schema, data, documents };
        const result = runValidator(validator, data);
        if (result) return result.valid ? { valid: true } : finishViolations(unitReport(result.errors, context));
        // Too many problems to collect: name the first ones, found with short-circuiting, and say so.
        firstProblems ??= buildValidator(schema, options, true);
        const first = runValidator(firstProblems, data);
        if (!first || first.valid) return tooManyProblems();
        return { ...finishViolations(unitReport(first.errors, context)), incomplete: true };
      });
    },
  };
}
