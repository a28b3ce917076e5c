import { memberPath } from '../registry/manifest/paths.ts';

/**
 * Nesting deeper than this is refused: canonical JSON, hashing and JSON.stringify recurse, and a
 * body of 100 000 `[` parses fine but overflows the stack of whatever touches it next. Manifests
 * (tool schemas inside tools inside the document) stay far below it.
 */
export const MAX_JSON_DEPTH = 64;

/** With the `u` flag a surrogate pair is one code point, so this matches only an unpaired half. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A container met during the walk; its path is only spelled out when something in it has a problem. */
interface Node {
  value: object;
  depth: number;
  parent?: Node;
  key?: string | number;
}

function pathOf(node: Node | undefined, root: string, last?: string | number): string {
  const keys: Array<string | number> = last === undefined ? [] : [last];
  for (let at = node; at?.parent; at = at.parent) keys.push(at.key!);
  return keys.reverse().reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : memberPath(path, key)), root);
}

/** Where (a JSON path from the root given) and what. */
export interface JsonInputProblem {
  path: string;
  message: string;
}

function surrogateProblem(path: string, what: string, text: string): JsonInputProblem {
  const unit = text.charCodeAt(text.search(LONE_SURROGATE)).toString(16);
  return { path, message: `${what} contains a lone surrogate (\\u${unit}): JSON text must be valid Unicode (a surrogate only as half of a pair); send the character itself or its pair` };
}

export const describeJsonInputProblem = (problem: JsonInputProblem) => `${problem.path}: ${problem.message}`;

/**
 * What makes a parsed JSON value unfit to hash, store or send back, or undefined when it is fit:
 * a lone surrogate in a string or key (valid JSON, not valid Unicode: it has no UTF-8 form, so
 * hashing and stores would silently turn it into U+FFFD or fail), a number outside the finite
 * range (`1e400` parses as Infinity), or nesting deeper than `maxDepth`; with the JSON path of
 * the offending value, from `root`.
 */
export function findJsonInputProblem(value: unknown, root = '$', maxDepth = MAX_JSON_DEPTH): JsonInputProblem | undefined {
  if (value === null || typeof value !== 'object') return scalarProblem(value, undefined, undefined, root);
  // Iterative on purpose: the input may be exactly the deep nesting this refuses. Only containers
  // go on the stack; strings and numbers are checked where they are met (most of a body).
  const stack: Node[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth >= maxDepth) return { path: pathOf(node, root), message: `nested more than ${maxDepth} levels deep; flatten the value` };
    const container = node.value as Record<string, unknown>;
    const keys = Array.isArray(container) ? undefined : Object.keys(container);
    const count = keys ? keys.length : (container as unknown as unknown[]).length;
    for (let i = 0; i < count; i++) {
      const key = keys ? keys[i] : i;
      if (typeof key === 'string' && LONE_SURROGATE.test(key)) return surrogateProblem(pathOf(node, root), `the key ${JSON.stringify(key)}`, key);
      const child = container[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key });
      else {
        const problem = scalarProblem(child, node, key, root);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

/** A string or number's problem, if any; its path is built only then. */
function scalarProblem(item: unknown, parent: Node | undefined, key: string | number | undefined, root: string): JsonInputProblem | undefined {
  if (typeof item === 'string') return LONE_SURROGATE.test(item) ? surrogateProblem(pathOf(parent, root, key), 'the string', item) : undefined;
  if (typeof item === 'number' && !Number.isFinite(item)) return { path: pathOf(parent, root, key), message: `the number is out of range (it overflows to ${item}); numbers must be finite` };
  return undefined;
}
