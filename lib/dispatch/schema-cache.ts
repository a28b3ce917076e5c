import type { ToolDefinition } from '../registry/definition.ts';
import type { CompiledSchema, CompileOptions, SchemaValidator } from '../validation/validator.ts';

/**
 * Compiled validators, one per tool definition, compiled on first use: loading a 1,000-tool
 * manifest compiles nothing, and a schema that fails to compile fails only its own tool's calls.
 * Each tenant runtime (one manifest version of one tenant) has its own cache and definitions, so
 * no validator is shared between versions or tenants, whatever their tools are called. A failure
 * is remembered like a validator: a broken schema is not compiled again on every call.
 */
export class SchemaCache {
  readonly validator: SchemaValidator;
  readonly #options: CompileOptions;
  readonly #compiled = new WeakMap<ToolDefinition, CompiledSchema | { failed: Error }>();

  constructor(validator: SchemaValidator, options: CompileOptions = {}) {
    this.validator = validator;
    this.#options = options;
  }

  /** The tool's validator; throws the compile error (InvalidSchemaError for a broken schema). */
  get(definition: ToolDefinition): CompiledSchema {
    let entry = this.#compiled.get(definition);
    if (!entry) {
      try {
        entry = this.validator.compile(definition.input_schema, this.#options);
      } catch (error) {
        entry = { failed: error instanceof Error ? error : new Error(String(error)) };
      }
      this.#compiled.set(definition, entry);
    }
    if (typeof entry !== 'function') throw entry.failed;
    return entry;
  }
}
