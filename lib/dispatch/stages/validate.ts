import type { ToolDefinition } from '../../registry/definition.ts';
import { withPatternBudget, type PatternBudget } from '../../patterns/index.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { SchemaCache } from '../schema-cache.ts';
import { fail, pass, type StageResult } from './stage.ts';

/**
 * JSON Schema validation; the message lists every violation so the model can fix its call in one
 * go. With a request's pattern budget, the validation (not the schema's compiling, on first use)
 * charges it.
 */
export function validateStage(schemas: SchemaCache, definition: ToolDefinition, args: JsonObject, budget?: PatternBudget): StageResult<JsonObject> {
  let compiled;
  try {
    compiled = schemas.get(definition);
  } catch (error) {
    return fail({ code: 'error', message: `Tool \`${definition.name}\` has an invalid input schema: ${(error as Error).message}` });
  }
  const outcome = budget ? withPatternBudget(() => compiled(args), budget) : compiled(args);
  if (outcome.valid) return pass(args);
  const lines = outcome.violations.map((v) => `- ${v.message}`).join('\n');
  return fail({
    code: 'invalid_arguments',
    message: `Invalid arguments for tool \`${definition.name}\`:\n${lines}\nFix the arguments and call the tool again.`,
    details: { violations: outcome.violations.map((v) => ({ path: v.pointer, keyword: v.keyword, message: v.message })) },
  });
}
