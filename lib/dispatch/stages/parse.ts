import type { JsonObject } from '../../registry/json.ts';
import { parseArguments } from '../../validation/parse-arguments.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** Arguments as an object or a JSON string → an object, or `invalid_arguments` with the parse position. */
export function parseStage(rawArguments: unknown): StageResult<JsonObject> {
  const parsed = parseArguments(rawArguments);
  return parsed.ok ? pass(parsed.args) : fail({ code: 'invalid_arguments', message: parsed.message, details: parsed.details });
}
