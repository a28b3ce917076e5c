import { memberPath } from '../registry/manifest-paths.ts';

/**
 * Nesting deeper than this is refused: canonical JSON, hashing and JSON.stringify recurse, and a
 * body of 100 000 `[` parses fine but overflows the stack of whatever touches it next. Manifests
 * (tool schemas inside tools inside the document) stay far below it.
 */
export const MAX_JSON_DEPTH = 64;

/** With the `u` flag a surrogate pair is one code point, so this matches only an unpaired half. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A value met during the walk; its path is only spelled out when it has a problem. */
interface Node {
  value: unknown;
  depth: number;
  parent?: Node;
  key?: string | number;
}

function pathOf(node: Node, root: string): string {
  const keys: Array<string | number> = [];
  for (let at: Node | undefined = node; at?.parent; at = at.parent) keys.push(at.key!);
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
  // Iterative on purpose: the input may be exactly the deep nesting this refuses.
  const stack: Node[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const item = node.value;
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return surrogateProblem(pathOf(node, root), 'the string', item);
    } else if (typeof item === 'number') {
      if (!Number.isFinite(item)) return { path: pathOf(node, root), message: `the number is out of range (it overflows to ${item}); numbers must be finite` };
    } else if (item !== null && typeof item === 'object') {
      if (node.depth >= maxDepth) return { path: pathOf(node, root), message: `nested more than ${maxDepth} levels deep; flatten the value` };
      const depth = node.depth + 1;
      if (Array.isArray(item)) {
        for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], depth, parent: node, key: i });
        continue;
      }
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        if (LONE_SURROGATE.test(key)) return surrogateProblem(pathOf(node, root), `the key ${JSON.stringify(key)}`, key);
        stack.push({ value: (item as Record<string, unknown>)[key], depth, parent: node, key });
      }
    }
  }
  return undefined;
}
