import { schemaWork } from './schema-cost.ts';

/**
 * Validation work one request may spend, over all its calls, in weighed subschema applications
 * (schemaWork: an enum's members, the names of `properties`, `required` and `dependentRequired`
 * count too): what the schema may cost at the arguments object, plus what it may cost at any one
 * value inside them times the other values. The engines run synchronously and cannot be
 * interrupted, so the work is bounded before they start. An application to a wrong value costs
 * ajv and the eval-free engine about 1-1.5 µs, so the worst a request can make them do is a few
 * hundred ms (bench/schema-cost.ts), what a 1 MiB body of ordinary values costs anyway; ordinary
 * schemas (a figure of 1-20 inside) still take 12,000-250,000 values per request.
 */
export const REQUEST_VALIDATION_WORK = 250_000;

/** Validation work that may still be spent by one request (one per HTTP request or batch). */
export class ValidationBudget {
  readonly units: number;
  #used = 0;

  constructor(units = REQUEST_VALIDATION_WORK) {
    this.units = units;
  }

  get used(): number {
    return this.#used;
  }

  /** Charges `work` if it fits in what is left; nothing is charged when it does not. */
  tryCharge(work: number): boolean {
    if (this.#used + work > this.units) return false;
    this.#used += work;
    return true;
  }
}

/** The work of validating `args` against `schema`, as charged, with the figures behind it. */
export function validationWork(schema: unknown, args: unknown): { work: number; values: number; perValue: number } {
  const { root, inside } = schemaWork(schema);
  const values = countValues(args);
  return { work: root + inside * (values - 1), values, perValue: inside };
}

/** JSON values in `value`: itself, and each member of its objects and arrays (the body limit bounds the walk). */
function countValues(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    count++;
    if (Array.isArray(next)) for (const item of next) stack.push(item);
    else if (next !== null && typeof next === 'object') for (const key in next) if (Object.hasOwn(next, key)) stack.push((next as Record<string, unknown>)[key]);
  }
  return count;
}
