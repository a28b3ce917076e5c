import type { JsonSchema } from '../registry/json.ts';
import type { SchemaDraft } from './schema-drafts.ts';
import { isSchemaObject, SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './subschemas.ts';

/** Keywords draft 2019-09 added (assertions and applicators; `$recursiveRef` is refused by the lint). */
const FROM_2019_09 = ['dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'minContains', 'maxContains'];
/** Keywords draft 2020-12 added. */
const FROM_2020_12 = ['prefixItems'];

/** What each draft does not have: by its specification an unknown keyword is ignored. */
const NOT_IN: Readonly<Record<SchemaDraft, readonly string[]>> = {
  'draft-06': [...FROM_2019_09, ...FROM_2020_12],
  'draft-07': [...FROM_2019_09, ...FROM_2020_12],
  '2019-09': FROM_2020_12,
  '2020-12': [],
};

/**
 * The schema as its draft reads it: without the keywords of later drafts, which that draft
 * ignores (ajv's class for the draft does not know them; the eval-free engine applies every
 * keyword it knows whatever the draft, so it is given this view). Subschemas without such a
 * keyword are shared, not copied; the keywords kept stay where they were, so the engine's
 * schema locations still point into the original.
 */
export function draftView(schema: JsonSchema, draft: SchemaDraft): JsonSchema {
  const dropped = NOT_IN[draft];
  if (dropped.length === 0) return schema;
  const view = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    let copy: Record<string, unknown> | undefined;
    const set = (key: string, value: unknown) => {
      if (value === node[key]) return;
      copy ??= { ...node };
      copy[key] = value;
    };
    for (const key of dropped) {
      if (!(key in node)) continue;
      copy ??= { ...node };
      delete copy[key];
    }
    for (const key of SCHEMA_KEYWORDS) {
      if (!(key in node) || dropped.includes(key)) continue;
      set(key, Array.isArray(node[key]) ? listView(node[key] as unknown[], view) : view(node[key]));
    }
    for (const key of SCHEMA_LIST_KEYWORDS) if (key in node && !dropped.includes(key) && Array.isArray(node[key])) set(key, listView(node[key] as unknown[], view));
    for (const key of SCHEMA_MAP_KEYWORDS) if (key in node && !dropped.includes(key) && isSchemaObject(node[key])) set(key, mapView(node[key], view));
    return copy ?? node;
  };
  return view(schema) as JsonSchema;
}

function listView(list: unknown[], view: (node: unknown) => unknown): unknown[] {
  const mapped = list.map(view);
  return mapped.every((item, i) => item === list[i]) ? list : mapped;
}

function mapView(map: Record<string, unknown>, view: (node: unknown) => unknown): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const name of Object.keys(map)) {
    const mapped = view(map[name]);
    if (mapped === map[name]) continue;
    copy ??= { ...map };
    // A defined property, not an assignment: a name such as "__proto__" stays a name.
    Object.defineProperty(copy, name, { value: mapped, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? map;
}
