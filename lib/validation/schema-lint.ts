import { checkPattern } from '../patterns/index.ts';
import { pointerSegments, valueAt } from './json-pointer.ts';
import { schemaCostProblem } from './schema-cost.ts';
import { DEFAULT_DRAFT, draftOf, hasTupleItems, schemaDraftProblem, type SchemaDraft } from './schema-drafts.ts';
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './subschemas.ts';
import { unevaluatedChecker } from './unevaluated-lint.ts';
import { InvalidSchemaError } from './validator.ts';

/** A problem in a schema, with a dotted path from the schema's root ("" = the root). */
export interface SchemaProblem {
  path: string;
  message: string;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const COUNT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

function isStringListMap(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((list) => Array.isArray(list) && list.every((v) => typeof v === 'string'));
}

/**
 * A `pattern` or `patternProperties` key must be one the linear-time matcher runs and must not
 * backtrack catastrophically (clients validating with the published schema may use JavaScript's
 * RegExp). Both engines run this lint when compiling, so a schema stored before the check is
 * refused there, with this message, instead of being matched.
 */
function patternProblem(source: unknown): string | undefined {
  return typeof source === 'string' ? checkPattern(source) : `${JSON.stringify(source)} is not a valid regular expression`;
}

export interface LintOptions {
  /** Absolute URIs of documents registered with the engine: `$ref`s into them resolve too. */
  knownUris?: readonly string[];
  /** The draft of a schema without `$schema` (EngineOptions.defaultDraft; 2020-12). */
  defaultDraft?: SchemaDraft;
}

/**
 * Every `$anchor` name anywhere in the document, collected once per lint (iteratively: the
 * document may be deep). Searching the document's text for each `$ref: "#name"` instead made
 * the lint quadratic: 8,000 such refs in a 175 KB schema took 43 s.
 */
function anchorsOf(root: unknown): Set<string> {
  const anchors = new Set<string>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && typeof (node as { $anchor?: unknown }).$anchor === 'string') anchors.add((node as { $anchor: string }).$anchor);
    for (const value of Object.values(node)) stack.push(value);
  }
  return anchors;
}

/**
 * Whether a `$ref` can be resolved: inside the schema itself (the only refs tool schemas may
 * use), or into a document the engine was given up front.
 */
function resolves(root: unknown, ref: string, knownUris: readonly string[], anchors: () => Set<string>): boolean {
  if (knownUris.includes(ref.replace(/#.*$/, ''))) return true;
  if (ref === '#') return true;
  if (ref.startsWith('#/')) return valueAt(root, ref) !== undefined;
  if (ref.startsWith('#')) return anchors().has(ref.slice(1));
  return false;
}

/** Keywords whose value is data, not a schema (though it may look like one). */
const DATA_KEYWORDS = ['examples', 'default', 'enum', 'const'];

/**
 * The data keyword a `#/...` pointer passes through, following the schema's structure from the
 * root (`#/examples/0` points into example data). The eval-free engine resolves refs to
 * subschemas only, and fails such a ref where ajv follows it: refused, so both agree.
 */
function dataKeywordOnPath(ref: string): string | undefined {
  const segments = ref.startsWith('#/') ? pointerSegments(ref) : [];
  // Whether the next segment is a schema's keyword (else a name in a keyword's map, or a list index).
  let keywordNext = true;
  for (const segment of segments) {
    if (!keywordNext) keywordNext = true;
    else if (DATA_KEYWORDS.includes(segment)) return segment;
    else if (SCHEMA_MAP_KEYWORDS.includes(segment) || SCHEMA_LIST_KEYWORDS.includes(segment)) keywordNext = false;
    // An unknown keyword's value is not followed further (both engines resolve those alike).
    else if (!SCHEMA_KEYWORDS.includes(segment)) return undefined;
  }
  return undefined;
}

/**
 * Structural checks of a JSON Schema (the draft its `$schema` declares, 2020-12 when none) that
 * both engines rely on. The compiled
 * engine also rejects what ajv rejects; the interpreted engine would otherwise accept nonsense
 * silently, so this is where "bad schema" errors with paths come from.
 */
export function lintSchema(root: unknown, options: LintOptions = {}): SchemaProblem[] {
  const knownUris = options.knownUris ?? [];
  const problems: SchemaProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  let anchors: Set<string> | undefined;
  const knownAnchors = () => (anchors ??= anchorsOf(root));
  const draft = draftOf(root, options.defaultDraft);
  // Walked by its draft where known; an unknown one is reported below, and walked as the default.
  const tuples = hasTupleItems(draft ?? DEFAULT_DRAFT);
  // unevaluatedItems/unevaluatedProperties only where both engines agree: unevaluated-lint.ts
  // (keywords since 2019-09; draft-07 ignores them on both engines).
  const checkUnevaluated = ['2019-09', '2020-12'].includes(draft ?? DEFAULT_DRAFT) ? unevaluatedChecker(root, join, problem) : () => undefined;
  const visitList = (list: unknown, path: string) => {
    if (!Array.isArray(list) || list.length === 0) problem(path, 'must be a non-empty array of schemas');
    else list.forEach((item, i) => visit(item, join(path, i)));
  };

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
    // An empty enum accepts nothing: ajv refuses it and the eval-free engine would fail every call.
    if ('enum' in s && !(Array.isArray(s.enum) && s.enum.length > 0)) problem(join(path, 'enum'), 'must be a non-empty array of allowed values');
    const patternIssue = 'pattern' in s ? patternProblem(s.pattern) : undefined;
    if (patternIssue) problem(join(path, 'pattern'), patternIssue);
    if ('format' in s && typeof s.format !== 'string') problem(join(path, 'format'), 'must be a string');
    if ('$ref' in s && (typeof s.$ref !== 'string' || !resolves(root, s.$ref, knownUris, knownAnchors))) {
      problem(join(path, '$ref'), `cannot resolve ${JSON.stringify(s.$ref)}: tool schemas may only reference their own $defs`);
    }
    const dataKeyword = typeof s.$ref === 'string' ? dataKeywordOnPath(s.$ref) : undefined;
    if (dataKeyword) problem(join(path, '$ref'), `${JSON.stringify(s.$ref)} points into ${dataKeyword}, which holds data, not a schema: put the schema under $defs and reference it with "#/$defs/..."`);
    for (const key of COUNT_KEYWORDS) {
      if (key in s && !(Number.isInteger(s[key]) && (s[key] as number) >= 0)) problem(join(path, key), 'must be a non-negative integer');
    }
    for (const key of NUMBER_KEYWORDS) {
      if (key in s && typeof s[key] !== 'number') problem(join(path, key), 'must be a number');
    }
    for (const keyword of ['$dynamicRef', '$dynamicAnchor', '$recursiveRef']) {
      if (keyword in s) problem(join(path, keyword), `${keyword} is not supported in tool schemas; use $defs with "$ref": "#/$defs/..."`);
    }
    if ('$id' in s && path !== '') problem(join(path, '$id'), 'nested $id is not supported in tool schemas; keep sub-schemas in $defs and reference them with "#/$defs/..."');
    const names = [...(Array.isArray(s.required) ? s.required : []), ...Object.keys((s.properties as object | null) ?? {})];
    if (names.includes('__proto__')) problem(path, 'a property named "__proto__" is not allowed in tool schemas (JavaScript treats it specially)');
    for (const key of ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly']) {
      if (key in s && typeof s[key] !== 'boolean') problem(join(path, key), 'must be true or false');
    }
    for (const key of ['title', 'description', '$comment']) {
      if (key in s && typeof s[key] !== 'string') problem(join(path, key), 'must be a string');
    }
    if ('dependentRequired' in s && !isStringListMap(s.dependentRequired)) problem(join(path, 'dependentRequired'), 'must map property names to arrays of property names');
    if ('multipleOf' in s && !(typeof s.multipleOf === 'number' && s.multipleOf > 0)) problem(join(path, 'multipleOf'), 'must be a number greater than 0');
    if ('$schema' in s) {
      // Engines read the draft at the root only: a subschema cannot switch to another one.
      const issue = path === '' ? schemaDraftProblem(s.$schema) : draftOf({ $schema: s.$schema }, options.defaultDraft) === draft ? undefined : 'a subschema cannot declare another draft than the schema\'s root: remove this $schema (the whole schema is validated by the root\'s)';
      if (issue) problem(join(path, '$schema'), issue);
    }
    checkUnevaluated(s, path);
    if (Array.isArray(s.items) && !tuples) problem(join(path, 'items'), 'must be a JSON Schema (an object or a boolean); for a tuple use prefixItems, as draft 2020-12 does (an array of schemas here is draft-07 and 2019-09 syntax)');
    for (const key of SCHEMA_KEYWORDS) {
      if (!(key in s)) continue;
      if (key === 'items' && Array.isArray(s.items)) {
        if (tuples) visitList(s.items, join(path, key));
      } else visit(s[key], join(path, key));
    }
    for (const key of SCHEMA_LIST_KEYWORDS) if (key in s) visitList(s[key], join(path, key));
    for (const key of SCHEMA_MAP_KEYWORDS) {
      if (!(key in s)) continue;
      const map = s[key];
      if (map === null || typeof map !== 'object' || Array.isArray(map)) {
        problem(join(path, key), 'must be an object mapping names to schemas');
        continue;
      }
      for (const [name, sub] of Object.entries(map)) {
        // `dependencies` maps a name to a subschema, or to the names it requires.
        if (key === 'dependencies' && Array.isArray(sub)) {
          if (sub.some((v) => typeof v !== 'string')) problem(join(join(path, key), name), 'must be a schema, or an array of property names');
          continue;
        }
        const keyIssue = key === 'patternProperties' ? patternProblem(name) : undefined;
        // The key itself is the pattern: its path names it, bracketed (it is rarely an identifier).
        if (keyIssue) problem(`${join(path, key)}[${JSON.stringify(name)}]`, keyIssue);
        visit(sub, join(join(path, key), name));
      }
    }
  };

  visit(root, '');
  // How much work the schema can demand of an engine (exponential $ref/anyOf chains): schema-cost.ts.
  const cost = schemaCostProblem(root);
  if (cost) problems.push(cost);
  return problems;
}

/** The lint as both engines run it before compiling: any problem refuses the schema, with paths. */
export function assertSchemaLintClean(schema: unknown, options: LintOptions = {}): void {
  const problems = lintSchema(schema, options);
  if (problems.length === 0) return;
  throw new InvalidSchemaError(problems.map((p) => `${p.path === '' ? '(root)' : p.path}: ${p.message}`).join('; '));
}
