import type { DescribedViolation, RawViolation } from './messages.ts';
import type { ValidationOutcome, Violation } from './validator.ts';

/** Keywords that only report "something inside failed"; the inner violation says what. */
const WRAPPERS = new Set(['properties', 'patternProperties', 'items', 'prefixItems', '$ref', '$dynamicRef', 'allOf', 'dependentSchemas', 'if', 'then', 'else', 'additionalItems', 'propertyNames']);

/**
 * Keywords whose own message says it all: their inner failures are folded into them (an item
 * that is not what `contains` wants is no violation by itself).
 */
export const FOLDING_KEYWORDS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'contains']);

/**
 * Turns an engine's raw list into the few violations a model needs: wrapper reports dropped,
 * branch failures folded into their anyOf/oneOf/contains, repeats removed. `locations` are the schema
 * locations of `raw`, index for index.
 */
export function finishViolations(
  raw: RawViolation[],
  locations: string[],
  describe: (violation: RawViolation, index: number) => DescribedViolation,
): ValidationOutcome {
  const combinatorLocations = raw.flatMap((v, i) => (FOLDING_KEYWORDS.has(v.keyword) ? [locations[i] + '/'] : []));
  const insideCombinator = (i: number) => combinatorLocations.some((prefix) => locations[i].startsWith(prefix));

  const violations: Violation[] = [];
  const seen = new Set<string>();
  const rejectedProperties = new Set<string>();
  raw.forEach((v, i) => {
    if (WRAPPERS.has(v.keyword) || insideCombinator(i)) return;
    // A schema-valued additionalProperties reports through its inner violations instead.
    if ((v.keyword === 'additionalProperties' || v.keyword === 'unevaluatedProperties') && v.expected !== false) return;
    const { pointer, message, detail } = describe(v, i);
    if (v.keyword === 'additionalProperties' || v.keyword === 'unevaluatedProperties') rejectedProperties.add(pointer);
    if (seen.has(message)) return;
    seen.add(message);
    violations.push({ pointer, keyword: v.keyword, message, detail });
  });
  // cfworker also reports the `false` schema the rejected property met; that says nothing new.
  const useful = violations.filter((v) => !(v.keyword === 'false' && rejectedProperties.has(v.pointer)));
  return useful.length === 0 && raw.length > 0
    ? { valid: false, violations: [{ pointer: '', keyword: raw[0].keyword, message: raw[0].fallback, detail: raw[0].fallback }] }
    : { valid: false, violations: useful };
}
