export * from './validator.ts';
export { createSchemaValidator, canGenerateCode } from './select-engine.ts';
export { createAjvValidator } from './ajv-engine.ts';
export { createCfworkerValidator } from './cfworker-engine.ts';
export { lintSchema, type LintOptions, type SchemaProblem } from './schema-lint.ts';
export { parseArguments, type ParsedArguments } from './parse-arguments.ts';
