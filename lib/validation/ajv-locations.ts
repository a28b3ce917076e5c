import type { ErrorObject } from 'ajv/dist/2020.js';
import { valueAt } from './json-pointer.ts';
import { FOLDING_KEYWORDS } from './violations.ts';

/** Pointers ("#/$defs/point") of every local `$ref` target reachable from `schema`. */
function refTargets(root: unknown, schema: unknown, found: Set<string> = new Set()): Set<string> {
  if (schema === null || typeof schema !== 'object') return found;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#') && !found.has(value)) {
      found.add(value);
      refTargets(root, valueAt(root, value), found);
    } else refTargets(root, value, found);
  }
  return found;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/**
 * The schema locations violations.ts folds anyOf/oneOf/contains branches by. ajv reports an error inside
 * a `$ref`'d branch at the target ("#/$defs/point/type") rather than through the branch
 * ("#/properties/p/anyOf/2/$ref/type", as the eval-free engine does), so the branch's errors
 * would escape the fold and the two engines would word the same failure differently. ajv
 * pushes such a keyword's branch errors right before its own error, so walking back from it
 * while errors sit inside a branch (directly or in a reachable ref target) finds them all.
 */
export function locationsThroughRefs(root: unknown, errors: readonly ErrorObject[]): string[] {
  const locations = errors.map((e) => e.schemaPath);
  errors.forEach((error, k) => {
    if (!FOLDING_KEYWORDS.has(error.keyword)) return;
    const own = locations[k];
    const targets = [...refTargets(root, error.schema)];
    for (let j = k - 1; j >= 0; j--) {
      const inside = under(locations[j], own) || targets.some((t) => under(locations[j], t === '#' ? '#/' : t));
      if (!inside || !under(errors[j].instancePath, error.instancePath)) break;
      if (!under(locations[j], own)) locations[j] = `${own}/$ref${locations[j].slice(1)}`;
    }
  });
  return locations;
}
