/**
 * Where `unevaluatedItems` / `unevaluatedProperties` would be judged differently by the two
 * engines (ajv and @cfworker/json-schema): each library tracks "evaluated" annotations wrongly
 * in its own corners of the spec. The lint refuses exactly those corners, so a tool schema it
 * accepts behaves the same on every runtime. Measured against the JSON-Schema-Test-Suite
 * (`npm run conformance`) and by test/validation/unevaluated-lint.test.ts. Plain
 * `unevaluatedProperties: false` next to properties, allOf, anyOf, oneOf, $ref and
 * if/then/else on declared properties is untouched: both engines agree there.
 */
import { pointerSegments, valueAt } from './json-pointer.ts';
import { isSchemaObject } from './subschemas.ts';

/** A subschema applied to the same instance as the schema holding unevaluated*, and how. */
interface InPlace {
  schema: Record<string, unknown>;
  path: string;
  /** Under an anyOf/oneOf branch, an `if` or dependentSchemas: its annotations count only when it passes. */
  conditional: boolean;
  /** Under an `if` whose annotations the engines count differently (see ifAnnotationsDiffer). */
  inIf: boolean;
}

/** A subschema that accepts everything: ajv skips a `then`/`else` like this as if it were absent. */
const acceptsAll = (schema: unknown) => schema === true || (isSchemaObject(schema) && Object.keys(schema).length === 0);
const applies = (schema: unknown) => schema !== undefined && !acceptsAll(schema);

/**
 * Both engines count an `if`'s annotations right only when it has a `then` and no `else`: ajv
 * ignores an `if` with neither, and with an `else` keeps the annotations of an `if` that failed.
 */
const ifAnnotationsDiffer = (s: Record<string, unknown>) => !(applies(s.then) && !applies(s.else));

type Report = (path: string, message: string) => void;
type Join = (path: string, key: string | number) => string;

const ITEM_KEYWORDS = ['prefixItems', 'items', 'additionalItems'];
const PROPERTY_KEYWORDS_BESIDES_PROPERTIES = ['patternProperties', 'additionalProperties', 'dependentSchemas', 'unevaluatedProperties'];
/** How many subschemas all the walks of one lint may visit (a hostile schema could be all $refs and unevaluated*). */
const WALK_BUDGET = 50_000;

const at = (path: string) => (path === '' ? '(root)' : path);

/** The in-place subschemas (the schema itself first), through allOf/anyOf/oneOf/if/then/else/dependentSchemas and local $refs; `not` drops annotations, so it is not entered. */
function inPlaceOf(root: unknown, schema: Record<string, unknown>, path: string, join: Join, budget: { left: number }): InPlace[] {
  const found: InPlace[] = [];
  const seen = new Set<object>();
  const stack: InPlace[] = [{ schema, path, conditional: false, inIf: false }];
  while (stack.length > 0 && budget.left-- > 0) {
    const node = stack.pop() as InPlace;
    if (seen.has(node.schema)) continue;
    seen.add(node.schema);
    found.push(node);
    const s = node.schema;
    const push = (sub: unknown, subPath: string, conditional: boolean, inIf: boolean) => {
      if (isSchemaObject(sub)) stack.push({ schema: sub, path: subPath, conditional: node.conditional || conditional, inIf: node.inIf || inIf });
    };
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((sub, i) => push(sub, join(join(node.path, key), i), key !== 'allOf', false));
    }
    push(s.if, join(node.path, 'if'), true, ifAnnotationsDiffer(s));
    push(s.then, join(node.path, 'then'), false, false);
    push(s.else, join(node.path, 'else'), false, false);
    if (isSchemaObject(s.dependentSchemas)) for (const [name, sub] of Object.entries(s.dependentSchemas)) push(sub, join(join(node.path, 'dependentSchemas'), name), true, false);
    if (typeof s.$ref === 'string' && (s.$ref === '#' || s.$ref.startsWith('#/'))) push(valueAt(root, s.$ref), pointerSegments(s.$ref).reduce<string>(join, ''), false, false);
  }
  return found;
}

/** `unevaluatedItems` where `contains`, or item keywords in a branch that may fail, decide what it sees. */
function itemProblems(scope: InPlace[], path: string, join: Join, report: Report): void {
  const here = join(path, 'unevaluatedItems');
  for (const { schema, path: where, conditional } of scope) {
    if ('contains' in schema) {
      report(here, `cannot be combined with contains (at ${join(where, 'contains')}): the engines disagree on which items contains marks as evaluated. Describe the items with prefixItems/items instead, or drop unevaluatedItems`);
    }
    const keyword = ITEM_KEYWORDS.find((k) => k in schema);
    if (conditional && keyword !== undefined) {
      report(here, `cannot see items evaluated by ${join(where, keyword)}, inside an anyOf/oneOf branch or an if: the engines disagree on whether a branch's items count as evaluated. Move prefixItems/items next to unevaluatedItems (or into allOf), or drop unevaluatedItems`);
    }
  }
}

/** `unevaluatedProperties` relying on properties that only an `if` evaluates. */
function propertyProblems(scope: InPlace[], path: string, join: Join, report: Report): void {
  const here = join(path, 'unevaluatedProperties');
  const declared = new Set(scope.filter((n) => !n.conditional && isSchemaObject(n.schema.properties)).flatMap((n) => Object.keys(n.schema.properties as object)));
  const advice = 'the engines disagree on whether the properties an if evaluates count as evaluated (with no then or else, or when the if fails)';
  for (const { schema, path: where, inIf } of scope) {
    if (!inIf) continue;
    const keyword = PROPERTY_KEYWORDS_BESIDES_PROPERTIES.find((k) => k in schema);
    if (keyword !== undefined) report(here, `cannot be combined with ${keyword} inside an if (${join(where, keyword)}): ${advice}. Move it out of the if, or drop unevaluatedProperties`);
    const undeclared = Object.keys(isSchemaObject(schema.properties) ? schema.properties : {}).filter((name) => !declared.has(name));
    if (undeclared.length > 0) {
      report(here, `the if at ${at(where)} evaluates ${undeclared.map((n) => JSON.stringify(n)).join(', ')}, not declared in properties next to unevaluatedProperties: ${advice}. Declare ${undeclared.length > 1 ? 'them' : 'it'} there too (e.g. "properties": {${JSON.stringify(undeclared[0])}: {}})`);
    }
  }
}

/** Checks one schema object of the document; returns a function per lint so the walk budget is shared. */
export function unevaluatedChecker(root: unknown, join: Join, report: Report): (schema: Record<string, unknown>, path: string) => void {
  const budget = { left: WALK_BUDGET };
  return (schema, path) => {
    const items = 'unevaluatedItems' in schema;
    const properties = 'unevaluatedProperties' in schema;
    if (!items && !properties) return;
    const scope = inPlaceOf(root, schema, path, join, budget);
    if (budget.left <= 0) {
      report(join(path, items ? 'unevaluatedItems' : 'unevaluatedProperties'), 'too many subschemas to check: simplify the schema (fewer $refs and unevaluatedItems/unevaluatedProperties)');
      return;
    }
    if (items) itemProblems(scope, path, join, report);
    if (properties) propertyProblems(scope, path, join, report);
  };
}
