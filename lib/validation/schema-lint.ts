import { valueAt } from './json-pointer.ts';

/** A problem in a schema, with a dotted path from the schema's root ("" = the root). */
export interface SchemaProblem {
  path: string;
  message: string;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems'];
const SCHEMA_LIST_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const COUNT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

function isRegExp(source: unknown): boolean {
  if (typeof source !== 'string') return false;
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

/** Whether a `$ref` can be resolved inside the schema itself (the only refs tool schemas may use). */
function resolvesLocally(root: unknown, ref: string): boolean {
  if (ref === '#') return true;
  if (ref.startsWith('#/')) return valueAt(root, ref) !== undefined;
  if (ref.startsWith('#')) return JSON.stringify(root).includes(`"$anchor":${JSON.stringify(ref.slice(1))}`);
  return false;
}

/**
 * Structural checks of a JSON Schema (draft 2020-12) that both engines rely on. The compiled
 * engine also rejects what ajv rejects; the interpreted engine would otherwise accept nonsense
 * silently, so this is where "bad schema" errors with paths come from.
 */
export function lintSchema(root: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });

  const visit = (schema: unknown, path: string): void => {
    if (typeof schema === 'boolean') return;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      problem(path, 'must be a JSON Schema (an object or a boolean)');
      return;
    }
    const s = schema as Record<string, unknown>;
    if ('type' in s) {
      const types = Array.isArray(s.type) ? s.type : [s.type];
      for (const t of types) {
        if (!TYPES.includes(t as string)) problem(join(path, 'type'), `${JSON.stringify(t)} is not a JSON Schema type (use one of ${TYPES.join(', ')})`);
      }
    }
    if ('required' in s && (!Array.isArray(s.required) || s.required.some((r) => typeof r !== 'string'))) {
      problem(join(path, 'required'), 'must be an array of property names');
    }
    if ('enum' in s && !Array.isArray(s.enum)) problem(join(path, 'enum'), 'must be an array of allowed values');
    if ('pattern' in s && !isRegExp(s.pattern)) problem(join(path, 'pattern'), `${JSON.stringify(s.pattern)} is not a valid regular expression`);
    if ('format' in s && typeof s.format !== 'string') problem(join(path, 'format'), 'must be a string');
    if ('$ref' in s && (typeof s.$ref !== 'string' || !resolvesLocally(root, s.$ref))) {
      problem(join(path, '$ref'), `cannot resolve ${JSON.stringify(s.$ref)}: tool schemas may only reference their own $defs`);
    }
    for (const key of COUNT_KEYWORDS) {
      if (key in s && !(Number.isInteger(s[key]) && (s[key] as number) >= 0)) problem(join(path, key), 'must be a non-negative integer');
    }
    for (const key of NUMBER_KEYWORDS) {
      if (key in s && typeof s[key] !== 'number') problem(join(path, key), 'must be a number');
    }
    if ('multipleOf' in s && !(typeof s.multipleOf === 'number' && s.multipleOf > 0)) problem(join(path, 'multipleOf'), 'must be a number greater than 0');
    for (const key of SCHEMA_KEYWORDS) if (key in s) visit(s[key], join(path, key));
    for (const key of SCHEMA_LIST_KEYWORDS) {
      if (!(key in s)) continue;
      const list = s[key];
      if (!Array.isArray(list) || list.length === 0) problem(join(path, key), 'must be a non-empty array of schemas');
      else list.forEach((item, i) => visit(item, join(join(path, key), i)));
    }
    for (const key of SCHEMA_MAP_KEYWORDS) {
      if (!(key in s)) continue;
      const map = s[key];
      if (map === null || typeof map !== 'object' || Array.isArray(map)) {
        problem(join(path, key), 'must be an object mapping names to schemas');
        continue;
      }
      for (const [name, sub] of Object.entries(map)) {
        if (key === 'patternProperties' && !isRegExp(name)) problem(join(path, key), `${JSON.stringify(name)} is not a valid regular expression`);
        visit(sub, join(join(path, key), name));
      }
    }
  };

  visit(root, '');
  return problems;
}
