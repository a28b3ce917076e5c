import type { ToolDefinition } from '../../registry/definition.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { FailedValidation } from '../../validation/validator.ts';
import type { SchemaCache } from '../schema-cache.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** The line after the listed problems saying what is not listed, if anything. */
function unlistedLine(outcome: FailedValidation): string | undefined {
  if (outcome.incomplete) return '- … and more not listed: the arguments have too many problems to collect them all';
  if (outcome.omitted) return `- … and ${outcome.omitted} more problem${outcome.omitted === 1 ? '' : 's'} not listed`;
  return undefined;
}

/**
 * JSON Schema validation; the message lists the violations (at most a few dozen, the first ones,
 * then how many more) so the model can fix its call in one go and the answer stays small.
 */
export function validateStage(schemas: SchemaCache, definition: ToolDefinition, args: JsonObject): StageResult<JsonObject> {
  let compiled;
  try {
    compiled = schemas.get(definition);
  } catch (error) {
    return fail({ code: 'error', message: `Tool \`${definition.name}\` has an invalid input schema: ${(error as Error).message}` });
  }
  let outcome;
  try {
    outcome = compiled(args);
  } catch (error) {
    // An engine failure is this call's problem, never the request's (no HTTP 500 from /validate).
    return fail({ code: 'error', message: `Could not validate the arguments of tool \`${definition.name}\`: ${(error as Error).message}` });
  }
  if (outcome.valid) return pass(args);
  const unlisted = unlistedLine(outcome);
  const lines = [...outcome.violations.map((v) => `- ${v.message}`), ...(unlisted ? [unlisted] : [])].join('\n');
  return fail({
    code: 'invalid_arguments',
    message: `Invalid arguments for tool \`${definition.name}\`:\n${lines}\nFix the arguments and call the tool again.`,
    details: {
      violations: outcome.violations.map((v) => ({ path: v.pointer, keyword: v.keyword, message: v.message })),
      ...(outcome.omitted ? { omitted: outcome.omitted } : {}),
      ...(outcome.incomplete ? { incomplete: true } : {}),
    },
  });
}
