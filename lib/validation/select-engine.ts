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

/** The ajv engine where code generation is allowed, the eval-free engine elsewhere. */
export function createSchemaValidator(engine: EngineName | 'auto' = 'auto'): SchemaValidator {
  const chosen = engine === 'auto' ? (canGenerateCode() ? 'ajv' : 'cfworker') : engine;
  return chosen === 'ajv' ? createAjvValidator() : createCfworkerValidator();
}
