import type { AjvCore } from './ajv-engine.ts';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import { canonicalJson } from '../idempotency/canonical-json.ts';

/**
 * The first pair of equal items (JSON Schema equality: object keys in any order, 1 and 1.0 the
 * same), or undefined. One pass, each item's canonical JSON as its identity: ajv compares every
 * pair of items unless their type is known to be scalar, so `uniqueItems` over 100,000 objects
 * would be 5·10^9 deep comparisons (one call blocking the process for minutes).
 */
export function firstDuplicate(items: readonly unknown[]): [earlier: number, later: number] | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonicalJson(items[i]);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, i];
    seen.set(key, i);
  }
  return undefined;
}

const uniqueItems: SchemaValidateFunction = (schema: unknown, data: unknown) => {
  if (schema !== true || !Array.isArray(data)) return true;
  const duplicate = firstDuplicate(data);
  if (!duplicate) return true;
  const [j, i] = duplicate;
  // ajv's own wording and params, so nothing downstream can tell the keyword was replaced.
  uniqueItems.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
  return false;
};

/** Replaces ajv's `uniqueItems` (quadratic for objects and arrays) with the linear check above. */
export function useLinearUniqueItems(ajv: AjvCore): void {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}
