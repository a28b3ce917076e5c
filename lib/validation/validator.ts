import type { JsonSchema } from '../registry/json.ts';

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

export type ValidationOutcome = { valid: true } | { valid: false; violations: Violation[] };

export type CompiledSchema = (data: unknown) => ValidationOutcome;

export type EngineName = 'ajv' | 'cfworker';

/**
 * The SchemaValidator port. `compile` is called once per manifest version and tool (lazily)
 * and throws InvalidSchemaError when the schema itself is broken.
 */
export interface SchemaValidator {
  readonly engine: EngineName;
  compile(schema: JsonSchema): CompiledSchema;
}

export class InvalidSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSchemaError';
  }
}
