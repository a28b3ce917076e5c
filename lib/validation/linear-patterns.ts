import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { compileSafePattern, PatternBudgetError, PatternError, withPatternBudget, type SafePattern } from '../patterns/index.ts';
import { NativeRegExp } from '../patterns/native-regexp.ts';
import type { ValidationOutcome } from './validator.ts';

/** ajv's `code.regExp`: every `pattern` and `patternProperties` key runs on the linear-time matcher. */
export const linearRegExpEngine: RegExpEngine = Object.assign((source: string, flags: string) => compileSafePattern(source, flags), {
  code: 'compileSafePattern',
});

const COMPILED_LIMIT = 256;
const compiled = new Map<string, SafePattern>();

/**
 * What `new RegExp(source, flags)` returns while the swap below is on: the linear-time matcher,
 * compiled once per pattern (the library builds a new RegExp on every validation). A pattern the
 * matcher cannot run (invalid, or a backreference or lookaround the lint refuses) is handed to
 * the native constructor: it throws for an invalid one, which `format: "regex"` relies on.
 */
function LinearRegExp(source: unknown, flags?: unknown): SafePattern | RegExp {
  const text = String(source);
  const flagText = flags === undefined ? '' : String(flags);
  const key = `${flagText}/${text}`;
  const known = compiled.get(key);
  if (known) return known;
  try {
    const pattern = compileSafePattern(text, flagText);
    if (compiled.size >= COMPILED_LIMIT) compiled.clear();
    compiled.set(key, pattern);
    return pattern;
  } catch (error) {
    if (error instanceof PatternError) return new NativeRegExp(text, flagText);
    throw error;
  }
}

/**
 * @cfworker/json-schema builds `new RegExp(pattern, 'u')` inside its validate() and offers no
 * way to pass another engine. Its validation is synchronous, so nothing else runs while it
 * does: for exactly that span the global RegExp constructor is the linear-time matcher, and the
 * native one is back before anything else can run (regular expression literals, such as the
 * library's format checks, never go through the global constructor).
 */
export function withLinearRegExp<T>(validate: () => T): T {
  const global = globalThis as { RegExp: unknown };
  if (global.RegExp !== NativeRegExp) return validate();
  global.RegExp = LinearRegExp;
  try {
    return validate();
  } finally {
    global.RegExp = NativeRegExp;
  }
}

/**
 * One matching budget for one validation (every pattern of the schema shares it): past it the
 * arguments are refused with a message, instead of blocking the process.
 */
export function withinPatternBudget(validate: () => ValidationOutcome): ValidationOutcome {
  try {
    return withPatternBudget(validate);
  } catch (error) {
    if (!(error instanceof PatternBudgetError)) throw error;
    return { valid: false, violations: [{ pointer: '', keyword: 'pattern', message: error.message, detail: error.message }] };
  }
}
