import { describeJsonInputProblem, findJsonInputProblem } from '../validation/json-input.ts';

export type JsonBodyParse = { ok: true; value: unknown } | { ok: false; code: 'invalid_request' | 'invalid_json'; message: string };

/** `fatal`: invalid UTF-8 is refused, not silently turned into U+FFFD (which would change what is hashed and run). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body as JSON the gateway can safely hash, store and echo: UTF-8, syntactically JSON,
 * and free of what JSON allows but the rest of the pipeline cannot take (lone surrogates,
 * numbers that overflow to Infinity, nesting deep enough to overflow a recursive walk).
 */
export function parseJsonBody(bytes: ArrayBuffer): JsonBodyParse {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, code: 'invalid_json', message: 'request body is not valid UTF-8; send JSON text encoded as UTF-8' };
  }
  if (text.trim() === '') return { ok: false, code: 'invalid_request', message: 'request body is empty; send a JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, code: 'invalid_json', message: `request body is not valid JSON: ${(error as Error).message}` };
  }
  const problem = findJsonInputProblem(value, '$');
  if (problem) return { ok: false, code: 'invalid_json', message: `request body refused: ${describeJsonInputProblem(problem)}` };
  return { ok: true, value };
}
