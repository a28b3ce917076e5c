import { isJsonObject, type JsonObject } from '../registry/json.ts';
import { describeValue } from './messages.ts';

export type ParsedArguments = { ok: true; args: JsonObject } | { ok: false; message: string; details: Record<string, unknown> };

/** Line and column (1-based) of a character offset, for parse errors a model can locate. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

/** Arguments arrive as an object, or as a JSON string (OpenAI sends them that way). */
export function parseArguments(raw: unknown): ParsedArguments {
  let value = raw;
  if (raw === undefined || raw === null || raw === '') value = {};
  else if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const position = Number(/position (\d+)/.exec((error as Error).message)?.[1] ?? raw.length);
      const { line, column } = lineAndColumn(raw, position);
      return {
        ok: false,
        message: `arguments are not valid JSON: ${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')} at position ${position} (line ${line}, column ${column}). Send the arguments as one JSON object.`,
        details: { position, line, column },
      };
    }
  }
  if (!isJsonObject(value)) {
    return { ok: false, message: `arguments must be a JSON object, got ${describeValue(value)}`, details: {} };
  }
  return { ok: true, args: value };
}
