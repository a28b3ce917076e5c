import type { JsonSchema } from '../registry/json.ts';
import type { SchemaDraft } from './schema-drafts.ts';

/** One rule the arguments broke, in engine-neutral form. */
export interface Violation {
  /** JSON pointer into the arguments ("" is the whole arguments object). */
  pointer: string;
  keyword: string;
  /** Readable for a model: names the argument and what was expected. */
  message: string;
  /** The same without the argument's name, for callers that print the path themselves. */
  detail: string;
}

/**
 * A failed validation lists at most MAX_LISTED_VIOLATIONS problems (the first ones, in the
 * engine's order): arguments with 100,000 wrong items must not cost 100,000 messages.
 */
export interface FailedValidation {
  valid: false;
  violations: Violation[];
  /** How many more problems were found and not listed (absent when none). */
  omitted?: number;
  /** Set when the engine could not collect every problem (too many): more may exist. */
  incomplete?: true;
}

export type ValidationOutcome = { valid: true } | FailedValidation;

/** The most problems one validation lists; the rest are counted in `omitted`. */
export const MAX_LISTED_VIOLATIONS = 20;

export type CompiledSchema = (data: unknown) => ValidationOutcome;

export type EngineName = 'ajv' | 'cfworker';

/** How `compile` treats its schema. */
export interface CompileOptions {
  /**
   * The schema passed this gateway's `check` when its manifest was published (the store's record
   * says so: lib/registry/manifest/checks.ts), so compiling skips the checks `check` made (the
   * lint, ajv's meta-schema). Anything else (a manifest stored directly, or checked by an older
   * gateway) is checked again when compiled.
   */
  checked?: boolean;
}

/**
 * The SchemaValidator port. `compile` is called once per manifest version and tool (lazily)
 * and throws InvalidSchemaError when the schema itself is broken.
 */
export interface SchemaValidator {
  readonly engine: EngineName;
  compile(schema: JsonSchema, options?: CompileOptions): CompiledSchema;
  /**
   * The problems of a schema, with dotted paths, without compiling it (checking a 1,000-tool
   * manifest must not cost 1,000 compilations; each tool compiles on its first call).
   */
  check(schema: JsonSchema): Array<{ path: string; message: string }>;
}

export class InvalidSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSchemaError';
  }
}

/** A schema document that `$ref`s may reach by its absolute URI (shared definitions). */
export interface SchemaResource {
  uri: string;
  schema: JsonSchema;
}

/** Options both engine factories accept; every one is optional. */
export interface EngineOptions {
  /** Documents registered up front, so `$ref: "<uri>#/..."` resolves without any fetching. */
  schemas?: readonly SchemaResource[];
  /**
   * Run `lintSchema` before compiling (default true). Only measuring harnesses turn it off:
   * the lint is deliberately stricter than JSON Schema (tool schemas may only reference their
   * own $defs), and the conformance suite needs the engines' own behaviour.
   */
  lint?: boolean;
  /**
   * The draft of a schema that declares no `$schema` (default 2020-12). Only measuring harnesses
   * change it: the official suite's draft-07 schemas leave the draft to the harness.
   */
  defaultDraft?: SchemaDraft;
  /**
   * ajv only: a schema compiled as checked is validated by the eval-free engine until ajv has
   * compiled it after the current task (default true; lib/validation/tiered.ts). Measuring
   * harnesses turn it off to time ajv's own first call.
   */
  tiered?: boolean;
}
