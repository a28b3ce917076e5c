import type { ToolDefinition } from '../registry/definition.ts';
import type { CompiledSchema, SchemaValidator } from '../validation/validator.ts';

/**
 * Compiled validators, one per tool definition, compiled on first use. Each manifest version
 * builds its own definitions, so this is "once per manifest version and tool".
 */
export class SchemaCache {
  readonly validator: SchemaValidator;
  readonly #compiled = new WeakMap<ToolDefinition, CompiledSchema>();

  constructor(validator: SchemaValidator) {
    this.validator = validator;
  }

  get(definition: ToolDefinition): CompiledSchema {
    let compiled = this.#compiled.get(definition);
    if (!compiled) {
      compiled = this.validator.compile(definition.input_schema);
      this.#compiled.set(definition, compiled);
    }
    return compiled;
  }
}
