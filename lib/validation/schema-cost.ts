import { MAX_JSON_DEPTH } from './json-input.ts';
import { pointerSegments } from './json-pointer.ts';

/**
 * The most subschema applications one value of the arguments may cost (see `schemaCostProblem`).
 * Ordinary tool schemas stay far below it (the official test suite's schemas: at most 68; zod's
 * and OpenAPI-style unions: under 100); a $ref chain of anyOf alternatives passes it at 8
 * levels. Not higher: an engine may do that much work at every value of the arguments, and at
 * the limit 1,000 wrong values already cost ajv seconds (bench/schema-cost.ts).
 */
export const MAX_SCHEMA_APPLICATIONS = 1_000;

/**
 * The most property names (`properties`, `dependentRequired` and `dependencies` keys) one tool schema may hold,
 * over all its subschemas: ajv writes code for each, so 20,000 took 3 s to compile on the tool's
 * first call after every publish, and at every object value both engines go through them all.
 */
export const MAX_PROPERTY_NAMES = 1_000;

/**
 * The most checks that read a whole value (WHOLE_VALUE_KEYWORDS) one value may get, counted per
 * path like applications: their cost grows with the value (a string's length, an object's keys,
 * an array's items), which the request's validation budget does not count, so repeating them is
 * what multiplies it (999 × `minProperties` in an allOf kept both engines 21 s on one 90,000-key
 * object; 999 × `minLength` 5 s on a 1 MB string). Ordinary schemas apply one or two.
 */
export const MAX_WHOLE_VALUE_CHECKS = 16;

/**
 * The most subschemas one tool schema may hold (counted once each, as reached from its root):
 * ajv writes code for each, and 30,000 `prefixItems` took it 8 s to compile, on the tool's first
 * call after every publish.
 */
export const MAX_SUBSCHEMAS = 2_000;

/**
 * Keywords whose check reads the whole value, in time growing with its size; `const` and `enum`
 * too when they hold an object or array (compared deeply). A scalar `const` (the titled-choices
 * `oneOf: [{const, title}, ...]` form) costs at most its own length, which the schema bounds.
 */
const WHOLE_VALUE_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format', 'uniqueItems', 'minProperties', 'maxProperties'];
const isStructure = (value: unknown) => value !== null && typeof value === 'object';
const readsWholeValue = (s: Record<string, unknown>) =>
  WHOLE_VALUE_KEYWORDS.some((key) => key in s) || isStructure(s.const) || (Array.isArray(s.enum) && s.enum.some(isStructure));

/** Deeper nesting, or a longer chain of $refs, is refused outright: the analysis recurses. */
export const MAX_SCHEMA_NESTING = 1_000;

/** A problem found by the cost analysis: where (dotted, "" = the root) and what. */
export interface SchemaCostProblem {
  path: string;
  message: string;
}

/** One subschema, with the subschemas it applies: at the same place, or to parts of the value. */
interface SchemaNode {
  path: string;
  /** allOf, anyOf, oneOf, not, if/then/else, dependentSchemas, dependencies (schema form), $ref: the same value again. */
  inPlace: SchemaNode[];
  /** properties: each applies to a different property, so at most one of them per property. */
  eachProperty: SchemaNode[];
  /** additionalProperties: the properties `properties` does not name (so never with one of those). */
  otherProperty: SchemaNode[];
  /** patternProperties, unevaluatedProperties, propertyNames: any property. */
  anyProperty: SchemaNode[];
  /** prefixItems (and the array form of items): one of them per item. */
  eachItem: SchemaNode[];
  /** items after prefixItems, additionalItems: the items past those (so never with one of those). */
  otherItem: SchemaNode[];
  /** contains, unevaluatedItems: any item. */
  anyItem: SchemaNode[];
  /** What one application costs: 1, or with `weighKeywords` 1 + the names and members its keywords go through (keywordWeight). */
  weight: number;
  /** Applications at the value itself (0: not counted yet, -1: being counted). */
  here: number;
  /** Whether this subschema reads the whole value (WHOLE_VALUE_KEYWORDS), and how many such checks apply at it, per path. */
  readsWhole: boolean;
  wholeChecks: number;
  /** The most applications at one value inside a property, and inside an item (as of the last pass). */
  property: number;
  item: number;
  /** The pass that last reached this node, and whether it finished it. */
  pass: number;
  done: boolean;
}

type EdgeKind = 'inPlace' | 'eachProperty' | 'otherProperty' | 'anyProperty' | 'eachItem' | 'otherItem' | 'anyItem';
/** Most nodes have few kinds of edges: they share this until their first edge of a kind (100,000 nodes, 500,000 arrays fewer). */
const NO_EDGES: SchemaNode[] = [];

/** A node without edges or figures yet. */
const newNode = (path: string): SchemaNode => ({ path, inPlace: NO_EDGES, eachProperty: NO_EDGES, otherProperty: NO_EDGES, anyProperty: NO_EDGES, eachItem: NO_EDGES, otherItem: NO_EDGES, anyItem: NO_EDGES, weight: 1, here: 0, readsWhole: false, wholeChecks: 0, property: 0, item: 0, pass: 0, done: false });

function addEdge(node: SchemaNode, kind: EdgeKind, child: SchemaNode): void {
  if (node[kind] === NO_EDGES) node[kind] = [child];
  else node[kind].push(child);
}

const IN_PLACE = ['not', 'if', 'then', 'else'];
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'];
const ANY_PROPERTY = ['unevaluatedProperties', 'propertyNames'];
const ANY_ITEM = ['contains', 'unevaluatedItems'];

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isSchema = (value: unknown) => typeof value === 'boolean' || isRecord(value);
/** The same dotted/bracketed paths as the schema lint. */
const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`);
/** Saturating: counts past any bound we care about stay finite and comparable. */
const add = (a: number, b: number) => Math.min(a + b, Number.MAX_SAFE_INTEGER);

/** Thrown inside the analysis to stop at the first problem; caught by `schemaCostProblem`. */
class Refusal extends Error {
  readonly problem: SchemaCostProblem;
  constructor(problem: SchemaCostProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/**
 * The schema as a graph: one node per subschema object (a `$ref` is an edge to its target, so
 * a target shared by many refs is one node reached along many paths). Built lazily from the root.
 */
class SchemaGraph {
  readonly #nodes = new Map<object, SchemaNode>();
  /** Subschemas reached so far. */
  get size(): number {
    return this.#nodes.size;
  }
  /** A boolean schema applies nothing further: one shared leaf. */
  readonly #leaf: SchemaNode = newNode('');
  #anchors: Map<string, { schema: unknown; path: string }> | undefined;

  readonly root: unknown;
  /** Weigh each application by its keywords' lists (keywordWeight): the runtime figure. */
  readonly #weighKeywords: boolean;
  constructor(root: unknown, weighKeywords = false) {
    this.root = root;
    this.#weighKeywords = weighKeywords;
  }

  readonly #unlinked: Array<{ node: SchemaNode; schema: Record<string, unknown> }> = [];
  /** `properties`, `dependentRequired` and `dependencies` names over every subschema linked so far. */
  propertyNames = 0;

  /** The node of a subschema, with its edges (built breadth-first, not recursively: the document may be deep). */
  node(schema: unknown, path: string): SchemaNode {
    const node = this.#nodeOf(schema, path);
    for (let next = this.#unlinked.pop(); next; next = this.#unlinked.pop()) this.#link(next.node, next.schema, next.node.path);
    return node;
  }

  #nodeOf(schema: unknown, path: string): SchemaNode {
    if (!isRecord(schema)) return this.#leaf;
    let node = this.#nodes.get(schema);
    if (node) return node;
    node = newNode(path);
    this.#nodes.set(schema, node);
    this.#unlinked.push({ node, schema });
    return node;
  }

  #link(node: SchemaNode, s: Record<string, unknown>, path: string): void {
    const one = (key: string, kind: EdgeKind) => {
      if (isSchema(s[key])) addEdge(node, kind, this.#nodeOf(s[key], join(path, key)));
    };
    const list = (key: string, kind: EdgeKind) => {
      const value = s[key];
      if (!Array.isArray(value)) return;
      const at = join(path, key);
      for (let i = 0; i < value.length; i++) if (isSchema(value[i])) addEdge(node, kind, this.#nodeOf(value[i], join(at, i)));
    };
    const map = (key: string, kind: EdgeKind) => {
      const value = s[key];
      if (!isRecord(value)) return;
      const at = join(path, key);
      for (const name in value) if (Object.hasOwn(value, name) && isSchema(value[name])) addEdge(node, kind, this.#nodeOf(value[name], join(at, name)));
    };
    if (this.#weighKeywords) node.weight = keywordWeight(s);
    this.propertyNames += sizeOf(s.properties) + sizeOf(s.dependentRequired) + sizeOf(s.dependencies);
    node.readsWhole = readsWholeValue(s);
    for (const key of IN_PLACE) one(key, 'inPlace');
    for (const key of IN_PLACE_LISTS) list(key, 'inPlace');
    for (const key of IN_PLACE_MAPS) map(key, 'inPlace');
    if (typeof s.$ref === 'string') {
      const target = this.#resolved(s.$ref);
      if (target) addEdge(node, 'inPlace', this.#nodeOf(target.schema, target.path));
    }
    map('properties', 'eachProperty');
    one('additionalProperties', 'otherProperty');
    map('patternProperties', 'anyProperty');
    for (const key of ANY_PROPERTY) one(key, 'anyProperty');
    list('prefixItems', 'eachItem');
    if (Array.isArray(s.items)) list('items', 'eachItem');
    else one('items', 'otherItem');
    one('additionalItems', 'otherItem');
    for (const key of ANY_ITEM) one(key, 'anyItem');
  }

  readonly #targets = new Map<string, { schema: unknown; path: string } | undefined>();

  /** Many refs name the same target: each is resolved once. */
  #resolved(ref: string) {
    if (!this.#targets.has(ref)) this.#targets.set(ref, this.#resolve(ref));
    return this.#targets.get(ref);
  }

  /**
   * A `$ref` inside the document ("#", "#/pointer", "#anchor"), with the target's path. Refs
   * into registered documents (the operator's, shared by every tenant) are not followed, and
   * the lint refuses every other ref.
   */
  #resolve(ref: string): { schema: unknown; path: string } | undefined {
    if (ref === '#' || ref.startsWith('#/')) {
      let schema = this.root;
      let path = '';
      for (const segment of pointerSegments(ref)) {
        if (Array.isArray(schema)) {
          if (!/^\d+$/.test(segment)) return undefined;
          path = join(path, Number(segment));
        } else if (isRecord(schema)) path = join(path, segment);
        else return undefined;
        schema = (schema as Record<string, unknown>)[segment];
      }
      return { schema, path };
    }
    if (ref.startsWith('#')) return (this.#anchors ??= anchorsOf(this.root)).get(ref.slice(1));
    return undefined;
  }
}

/** Every `$anchor` in the document with the path of the schema that names it (iterative: the document may be deep). */
function anchorsOf(root: unknown): Map<string, { schema: unknown; path: string }> {
  const anchors = new Map<string, { schema: unknown; path: string }>();
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    const anchor = (value as { $anchor?: unknown }).$anchor;
    if (isRecord(value) && typeof anchor === 'string' && !anchors.has(anchor)) anchors.set(anchor, { schema: value, path });
    for (const [key, item] of Object.entries(value)) stack.push({ value: item, path: join(path, Array.isArray(value) ? Number(key) : key) });
  }
  return anchors;
}

const sizeOf = (value: unknown) => (Array.isArray(value) ? value.length : isRecord(value) ? Object.keys(value).length : 0);

/**
 * What applying one subschema costs an engine beyond a constant: every member of its `enum`
 * compared with the value; on an object value every name of `properties` (both engines go
 * through them all, present or not), of `required` (ajv builds an error per missing one), and
 * of `dependentRequired` with its lists. A schema naming 20,000 properties applied to 10,000
 * empty objects kept ajv busy 18 s and the eval-free engine 87 s, while counting 1 a value.
 */
function keywordWeight(s: Record<string, unknown>): number {
  let weight = 1 + sizeOf(s.enum) + sizeOf(s.properties) + sizeOf(s.required);
  // `dependencies` (draft-07) holds lists of names as `dependentRequired` does, or subschemas (in-place edges).
  for (const dependent of [s.dependentRequired, s.dependencies]) {
    if (isRecord(dependent)) for (const name in dependent) if (Object.hasOwn(dependent, name)) weight += 1 + (Array.isArray(dependent[name]) ? sizeOf(dependent[name]) : 0);
  }
  return weight;
}

function tooDeep(node: SchemaNode): never {
  throw new Refusal({
    path: node.path,
    message: `subschemas nested or chained through $ref more than ${MAX_SCHEMA_NESTING} levels deep; no arguments need that, flatten the schema`,
  });
}

function overLimit(node: SchemaNode, applications: number, recursive: boolean): never {
  const count = applications.toLocaleString('en-US');
  const why = recursive
    ? 'a recursive $ref whose alternatives reach it again more than once per level of the arguments multiplies at every level of nesting'
    : 'every anyOf/oneOf/allOf branch and every $ref counts once per path that reaches it, so alternatives that refer to the same definitions multiply level by level';
  throw new Refusal({
    path: node.path,
    message: `validating one value against this subschema can apply ${count} subschemas to a single value of the arguments, more than the limit of ${MAX_SCHEMA_APPLICATIONS.toLocaleString('en-US')}: ${why}; merge alternatives that lead to the same definitions, or flatten the chain`,
  });
}

/**
 * Applications at the value itself: 1 + those of every in-place subschema, counted per path (a
 * shared target counts once for every way it is reached). Memoized, so linear in the graph; a
 * cycle of in-place edges would apply subschemas forever to the same value and is refused.
 */
function countHere(node: SchemaNode, limit: number, depth: number): number {
  if (node.here > 0) return node.here;
  if (node.here < 0) {
    throw new Refusal({
      path: node.path,
      message: 'this subschema applies itself again to the same value (a cycle of $ref through allOf/anyOf/oneOf/not/if/then/else, without properties or items in between): validation would never end; make each recursion step go into a property or an item',
    });
  }
  if (depth > MAX_SCHEMA_NESTING) tooDeep(node);
  node.here = -1;
  let total = node.weight;
  let whole = node.readsWhole ? 1 : 0;
  for (const child of node.inPlace) {
    total = add(total, countHere(child, limit, depth + 1));
    whole = add(whole, child.wholeChecks);
  }
  if (total > limit) overLimit(node, total, false);
  if (whole > MAX_WHOLE_VALUE_CHECKS) {
    throw new Refusal({
      path: node.path,
      message: `validating one value against this subschema can run ${whole.toLocaleString('en-US')} checks that read the whole value (${WHOLE_VALUE_KEYWORDS.join(', ')}, const or enum of objects or arrays), more than the limit of ${MAX_WHOLE_VALUE_CHECKS}: each costs time growing with the value's size; state each such keyword once per place, not in many allOf/anyOf branches or $refs to the same definition`,
    });
  }
  node.wholeChecks = whole;
  node.here = total;
  return total;
}

/** Every node the root reaches, by any edge, leaves first (iteratively: a $ref chain may be long). */
function reachable(root: SchemaNode): SchemaNode[] {
  const seen = new Set<SchemaNode>([root]);
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const edges of [node.inPlace, node.eachProperty, node.otherProperty, node.anyProperty, node.eachItem, node.otherItem, node.anyItem]) {
      for (const child of edges) {
        if (seen.has(child)) continue;
        seen.add(child);
        stack.push(child);
      }
    }
  }
  // Leaves first: counting each then starts from figures already known (shallow recursion).
  return [...seen].reverse();
}

/** One pass of `countBelow` over the graph. */
interface Pass {
  number: number;
  limit: number;
  /** A reference back to a node still being computed was met: another pass may raise figures. */
  recursive: boolean;
  /** Some figure differs from the previous pass's. */
  changed: boolean;
}

/**
 * The most applications at any single value below a node (in a property, or in an item, or
 * deeper). Applying a node applies its in-place subschemas at the same value, so their counts
 * below add up (a property or item can be reached through each of them); see `ownFigure` for a
 * node's own property and item keywords. A recursive reference (back to a node still being
 * computed: always through a property or an item, as in-place cycles are refused before) reads
 * the previous pass's figure.
 */
function countBelow(node: SchemaNode, pass: Pass, depth: number): void {
  if (node.pass === pass.number) {
    if (!node.done) pass.recursive = true;
    return;
  }
  if (depth > MAX_SCHEMA_NESTING) tooDeep(node);
  node.pass = pass.number;
  node.done = false;
  let property = 0;
  let item = 0;
  for (const child of node.inPlace) {
    countBelow(child, pass, depth + 1);
    property = add(property, child.property);
    item = add(item, child.item);
  }
  property = add(property, ownFigure(node.eachProperty, node.otherProperty, node.anyProperty, pass, depth + 1));
  item = add(item, ownFigure(node.eachItem, node.otherItem, node.anyItem, pass, depth + 1));
  const worst = Math.max(property, item);
  if (worst > pass.limit) overLimit(node, worst, pass.number > 1);
  if (property !== node.property || item !== node.item) pass.changed = true;
  node.property = property;
  node.item = item;
  node.done = true;
}

/**
 * The most applications one node's own property (or item) keywords cause at a single value:
 * one of `each` (the largest) or the `other`s, never both, plus every `any`.
 */
function ownFigure(each: readonly SchemaNode[], other: readonly SchemaNode[], any: readonly SchemaNode[], pass: Pass, depth: number): number {
  let named = 0;
  for (const child of each) named = Math.max(named, atOrBelow(child, pass, depth));
  let rest = 0;
  for (const child of other) rest = add(rest, atOrBelow(child, pass, depth));
  let figure = Math.max(named, rest);
  for (const child of any) figure = add(figure, atOrBelow(child, pass, depth));
  return figure;
}

/** The most applications at one value at or below a child's: its own, or deeper. */
function atOrBelow(child: SchemaNode, pass: Pass, depth: number): number {
  countBelow(child, pass, depth);
  return Math.max(child.here, child.property, child.item);
}

/**
 * Recursion: each pass lets a recursive reference reach one more level of nesting, so pass n
 * bounds every value of arguments nested up to n - 1 levels. Arguments nest at most
 * MAX_JSON_DEPTH levels (deeper ones are refused before validation), so that many passes bound
 * every call; most recursive schemas settle (the same figures twice) after two or three.
 */
function countAllBelow(root: SchemaNode, limit: number): void {
  for (let number = 1; number <= MAX_JSON_DEPTH + 2; number++) {
    const pass: Pass = { number, limit, recursive: false, changed: false };
    countBelow(root, pass, 0);
    if (!pass.recursive || !pass.changed) return;
  }
}

/**
 * How much work a schema can demand of a validation engine, bounded before it is ever used.
 * The measure: the most subschema applications at one value of the arguments, counting every
 * path (alternatives multiply along a path of $refs, applicators add). Engines may do that much
 * work at every value of the arguments, and for a wrong value ajv reports every failed path, so
 * a chain of `anyOf` whose branches `$ref` the same next level doubles the work per level:
 * 21 levels took ajv 4 s and 419 MB for one call. Over `limit`, the schema is refused with the
 * path of the smallest subschema over it. The analysis is linear in the schema's size (per pass;
 * recursive schemas take a few passes).
 */
export function schemaCostProblem(schema: unknown, limit = MAX_SCHEMA_APPLICATIONS): SchemaCostProblem | undefined {
  try {
    analyse(new SchemaGraph(schema), limit);
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error.problem;
    throw error;
  }
}

/** Counts every node's figures; the root's node, or a Refusal. */
function analyse(graph: SchemaGraph, limit: number): SchemaNode {
  const root = graph.node(graph.root, '');
  if (graph.size > MAX_SUBSCHEMAS) {
    throw new Refusal({ path: '', message: `the schema holds ${graph.size.toLocaleString('en-US')} subschemas, more than the limit of ${MAX_SUBSCHEMAS.toLocaleString('en-US')}: split the tool, or share repeated parts through $defs and $ref` });
  }
  if (graph.propertyNames > MAX_PROPERTY_NAMES) {
    const names = graph.propertyNames.toLocaleString('en-US');
    throw new Refusal({ path: '', message: `the schema names ${names} properties (in properties, dependentRequired and dependencies, over all its subschemas), more than the limit of ${MAX_PROPERTY_NAMES.toLocaleString('en-US')}: split the tool, or take open-ended keys with additionalProperties or patternProperties` });
  }
  for (const node of reachable(root)) countHere(node, limit, 0);
  countAllBelow(root, limit);
  return root;
}

/** The most work (weighed applications, keywordWeight) one value may take: the arguments object itself, and any value inside it. */
export interface SchemaWork {
  root: number;
  inside: number;
}

const workOf = new WeakMap<object, SchemaWork>();
const REFUSED: SchemaWork = { root: Infinity, inside: Infinity };

/**
 * The most work validating one value of the arguments against this schema may take, in
 * applications weighed by the lists their keywords go through (keywordWeight): at the arguments
 * object, and at any one value inside it (in a property or an item, at any depth). With the
 * values counted, it bounds a validation's work before it starts (lib/validation/work-budget.ts).
 * Remembered per schema object; a schema the analysis refuses (never compiled) costs Infinity.
 */
export function schemaWork(schema: unknown): SchemaWork {
  if (!isRecord(schema)) return { root: 1, inside: 1 };
  let work = workOf.get(schema);
  if (work === undefined) {
    try {
      const root = analyse(new SchemaGraph(schema, true), Number.MAX_SAFE_INTEGER);
      work = { root: root.here, inside: Math.max(root.property, root.item, 1) };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      work = REFUSED;
    }
    workOf.set(schema, work);
  }
  return work;
}
