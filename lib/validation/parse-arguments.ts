import { isJsonObject, type JsonObject } from '../registry/json.ts';
import { describeJsonInputProblem, findJsonInputProblem } from './json-input.ts';
import { describeValue } from './messages.ts';

export type ParsedArguments = { ok: true; args: JsonObject } | { ok: false; message: string; details: Record<string, unknown> };

/** Line and column (1-based) of a character offset, for parse errors a model can locate. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

const reportedPosition = (message: string) => /at position (\d+)/.exec(message)?.[1];

/** Whether `text` could still begin a valid JSON text: it parses, or only its end is missing. */
function viablePrefix(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    // "1." and "\u12" are reported as errors at the very end: more input could complete them.
    return /Unexpected end of JSON input/.test(message) || Number(reportedPosition(message)) === text.length;
  }
}

/**
 * Where parsing failed. V8 names the position for most errors but not for "Unexpected token"
 * (`{"a": True}`, a model's most common slip), so find the longest prefix that is still viable.
 */
function errorPosition(raw: string, message: string): number {
  const reported = reportedPosition(message);
  if (reported !== undefined) return Number(reported);
  let low = 0;
  let high = raw.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (viablePrefix(raw.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** V8's reason without its position or its echo of the whole text (we say where, briefly). */
const reasonOf = (message: string) =>
  message.replace(/ (?:in JSON )?at position \d+.*$/s, '').replace(/^(Unexpected token '.+?'), .*$/s, '$1');

function parseFailure(raw: string, error: Error): ParsedArguments {
  const position = errorPosition(raw, error.message);
  const { line, column } = lineAndColumn(raw, position);
  return {
    ok: false,
    message: `arguments are not valid JSON: ${reasonOf(error.message)} at position ${position} (line ${line}, column ${column}). Send the arguments as one JSON object.`,
    details: { position, line, column },
  };
}

/** Arguments arrive as an object, or as a JSON string (OpenAI sends them that way). */
export function parseArguments(raw: unknown): ParsedArguments {
  let value = raw;
  if (raw === undefined || raw === null || raw === '') value = {};
  else if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return parseFailure(raw, error as Error);
    }
  }
  if (!isJsonObject(value)) {
    return { ok: false, message: `arguments must be a JSON object, got ${describeValue(value)}`, details: {} };
  }
  // What JSON allows but hashing, stores and the model's reply cannot take (a JSON-string's inner
  // text, or a library caller's object, has not been through the HTTP body check).
  const problem = findJsonInputProblem(value, 'arguments');
  if (problem) return { ok: false, message: `${describeJsonInputProblem(problem)}. Fix the arguments and call the tool again.`, details: { path: problem.path } };
  return { ok: true, args: value };
}
