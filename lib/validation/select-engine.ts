import { createAjvValidator } from './ajv-engine.ts';
import { createCfworkerValidator } from './cfworker-engine.ts';
import type { EngineName, SchemaValidator } from './validator.ts';

/** False where the runtime refuses `new Function` (Cloudflare Workers: "Code generation from strings disallowed"). */
export function canGenerateCode(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}

/**
 * The ajv engine where code generation is allowed, the eval-free engine elsewhere. With `auto`
 * the choice is made on first use, not at construction: Workers allow `new Function` while a
 * module loads and refuse it inside requests, where schemas are compiled.
 */
export function createSchemaValidator(engine: EngineName | 'auto' = 'auto'): SchemaValidator {
  if (engine !== 'auto') return engine === 'ajv' ? createAjvValidator() : createCfworkerValidator();
  let chosen: SchemaValidator | undefined;
  const pick = () => (chosen ??= canGenerateCode() ? createAjvValidator() : createCfworkerValidator());
  return {
    get engine() {
      return pick().engine;
    },
    compile: (schema, options) => pick().compile(schema, options),
    check: (schema) => pick().check(schema),
  };
}
