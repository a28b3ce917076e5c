import type { AjvCore } from './ajv-engine.ts';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';

/** A finite number as an exact decimal: coefficient · 10^exponent (from its shortest JS spelling). */
function asDecimal(value: number): [coefficient: bigint, exponent: number] {
  const [mantissa, exponent = '0'] = Math.abs(value).toString().split('e');
  const point = mantissa.indexOf('.');
  const decimals = point === -1 ? 0 : mantissa.length - point - 1;
  return [BigInt(mantissa.replace('.', '')), Number(exponent) - decimals];
}

/**
 * Whether `value` is a multiple of `divisor`, in exact decimal arithmetic, as the eval-free engine
 * (@cfworker/json-schema) decides it. ajv divides in floating point, so 1e308 is no multiple of
 * 0.5 there (the quotient overflows to Infinity) and 0.3 none of 0.1 (2.9999999999999996): the
 * same argument passed on Workers and failed on Node. One rule on both runtimes: this one.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [a, aExp] = asDecimal(value);
  const [b, bExp] = asDecimal(divisor);
  // Scale the one with the larger exponent so both are integers of the same unit.
  return aExp >= bExp ? (a * 10n ** BigInt(aExp - bExp)) % b === 0n : a % (b * 10n ** BigInt(bExp - aExp)) === 0n;
}

const multipleOf: SchemaValidateFunction = (schema: unknown, data: unknown) => {
  if (typeof schema !== 'number' || typeof data !== 'number' || isMultipleOf(data, schema)) return true;
  // ajv's own wording and params, so nothing downstream can tell the keyword was replaced.
  multipleOf.errors = [{ keyword: 'multipleOf', message: `must be multiple of ${schema}`, params: { multipleOf: schema } }];
  return false;
};

/** Replaces ajv's floating-point `multipleOf` with the exact decimal check above. */
export function useExactMultipleOf(ajv: AjvCore): void {
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', errors: true, validate: multipleOf });
}
