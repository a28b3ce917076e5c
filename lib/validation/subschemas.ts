/**
 * Where a JSON Schema holds subschemas, in every supported draft (the union: a keyword one draft
 * lacks is still walked, so no check can be skipped by declaring an older draft). The lint and
 * the draft view walk schemas through these; the cost analysis (schema-cost.ts) sorts the same
 * keywords by what part of the value they apply to.
 */

/** Keywords whose value is one subschema. `items` is one here, or a list (draft-07/2019-09 tuples). */
export const SCHEMA_KEYWORDS = ['items', 'additionalItems', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
/** Keywords whose value is a non-empty list of subschemas. */
export const SCHEMA_LIST_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
/**
 * Keywords whose value maps names to subschemas. `dependencies` (draft-07 and before) maps a
 * property either to a subschema or to a list of property names (what `dependentRequired` became).
 */
export const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

export const isSchemaObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
