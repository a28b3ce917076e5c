import type { Context } from 'hono';
import type { IdentifierShape } from './identifiers.ts';
import { InputError } from './input-error.ts';

/**
 * Readers for query and path parameters. Each returns the parsed value or throws InputError
 * (answered 400 with its message), so a route reads `const limit = integerQuery(c, 'limit', ...)`
 * and never sees a negative, fractional, huge, repeated or non-numeric value.
 */

/** Cursors are store positions: whole numbers a double holds exactly. */
const WHOLE_NUMBER = /^\d{1,16}$/;
const DECIMAL = /^\d{1,6}(\.\d{1,3})?$/;

const shown = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);

/** The parameter's one value; given more than once it is refused (which one should count is a guess). */
export function queryValue(c: Context, name: string): string | undefined {
  const values = c.req.queries(name);
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new InputError(`${name} is given ${values.length} times; give it at most once`);
  return values[0];
}

export interface IntegerRange {
  min: number;
  max: number;
  default: number;
}

/** A whole number within `range` (digits only: no sign, fraction, exponent or spaces); absent → the default. */
export function integerQuery(c: Context, name: string, range: IntegerRange): number {
  const raw = queryValue(c, name);
  if (raw === undefined) return range.default;
  const value = WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= range.min && value <= range.max)) throw new InputError(`${name} must be a whole number from ${range.min} to ${range.max} (got ${shown(raw)})`);
  return value;
}

/** A number of seconds from 0 to `max`, with at most 3 decimals; absent → 0. */
export function secondsQuery(c: Context, name: string, max: number): number {
  const raw = queryValue(c, name);
  if (raw === undefined) return 0;
  const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= max)) throw new InputError(`${name} must be a number of seconds from 0 to ${max}, with at most 3 decimals (got ${shown(raw)})`);
  return value;
}

/** `cursor`: the next_cursor of a previous page (a whole number), or absent for the first page. */
export function cursorQuery(c: Context, name = 'cursor'): number | undefined {
  const raw = queryValue(c, name);
  if (raw === undefined) return undefined;
  const value = WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new InputError(`${name} must be the next_cursor of a previous page (got ${shown(raw)}); leave it out for the first page`);
  return value;
}

/** One of `choices`; absent → undefined. */
export function choiceQuery<T extends string>(c: Context, name: string, choices: readonly T[]): T | undefined {
  const raw = queryValue(c, name);
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) throw new InputError(`${name} must be one of ${choices.join(', ')}`);
  return raw as T;
}

/** A required parameter of a known shape (an identifier). */
export function identifierQuery(c: Context, name: string, shape: IdentifierShape): string {
  const raw = queryValue(c, name);
  if (raw === undefined || raw === '') throw new InputError(`${name} is required: ${shape.describe}`);
  if (!shape.pattern.test(raw)) throw new InputError(`${name} must be ${shape.describe} (got ${shown(raw)})`);
  return raw;
}

/**
 * A path parameter of a known shape. One of another shape names nothing that can exist: 404,
 * without a lookup (which could not succeed, and for a huge value could fail in the store).
 */
export function identifierParam(c: Context, name: string, shape: IdentifierShape, label: string): string {
  const raw = c.req.param(name) ?? '';
  if (!shape.pattern.test(raw)) throw new InputError(`${label} ${shown(raw)} does not exist: ${label}s are ${shape.describe}`, 404);
  return raw;
}
