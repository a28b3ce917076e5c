import type { ErrorObject } from 'ajv/dist/2020.js';
import { valueAt } from './json-pointer.ts';
import { FOLDING_KEYWORDS, markFolded } from './violations.ts';

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

/** Whether `path` is `prefix` or below it (JSON pointers / schema locations); allocates nothing. */
function under(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix.endsWith('/') || path.charCodeAt(prefix.length) === 0x2f;
}

/** Whether a schema location is one of `targets` or inside one ("#" holds everything). */
function insideTarget(location: string, targets: ReadonlySet<string>): boolean {
  if (targets.size === 0) return false;
  if (targets.has('#') || targets.has(location)) return true;
  // Each ancestor location once: "#/$defs", "#/$defs/point", ...
  for (let slash = location.indexOf('/', 2); slash !== -1; slash = location.indexOf('/', slash + 1)) {
    if (targets.has(location.slice(0, slash))) return true;
  }
  return false;
}

/**
 * Which errors are branch failures of a failed anyOf/oneOf/contains (see markFolded): ajv pushes
 * them as one run right before the keyword's own error. ajv reports an error inside a `$ref`'d
 * branch at the target ("#/$defs/point/type") rather than through the branch (as the eval-free
 * engine does), so an error belongs to the keyword when its location is under the keyword's or
 * under a ref target reachable from the keyword's schema, at or below the keyword's instance.
 */
export function foldedAjvErrors(root: unknown, errors: readonly ErrorObject[]): Uint8Array {
  // Per keyword schema, not per error: 100,000 items failing one anyOf share one set.
  const targets = new Map<unknown, Set<string>>();
  const targetsOf = (error: ErrorObject) => {
    let found = targets.get(error.schema);
    if (!found) targets.set(error.schema, (found = refTargets(root, error.schema)));
    return found;
  };
  return markFolded(
    errors.length,
    false,
    (k) => FOLDING_KEYWORDS.has(errors[k].keyword),
    (j, k) => {
      const error = errors[j];
      const folding = errors[k];
      const inBranch = under(error.schemaPath, folding.schemaPath) || insideTarget(error.schemaPath, targetsOf(folding));
      return inBranch && under(error.instancePath, folding.instancePath);
    },
  );
}
