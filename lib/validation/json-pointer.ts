/** Small JSON-pointer helpers shared by the engines and the message writer. */

function decodeFragment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Segments of a JSON pointer ("/a/b") or of its URI-fragment form ("#/a%20b"). Only the
 * fragment form is percent-decoded: a plain pointer may hold "%" literally (an argument
 * named "50%"), and decoding it would mangle the name or throw.
 */
export function pointerSegments(pointer: string): string[] {
  const fragment = pointer.startsWith('#');
  const body = fragment ? pointer.slice(1) : pointer;
  if (body === '' || body === '/') return [];
  return body
    .slice(1)
    .split('/')
    .map((segment) => (fragment ? decodeFragment(segment) : segment).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** "#/a%20b" (as @cfworker/json-schema reports locations) → "/a b". */
export function fragmentToPointer(fragment: string): string {
  return pointerSegments(fragment).reduce(appendPointer, '');
}

export function appendPointer(pointer: string, segment: string | number): string {
  return `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Follows a pointer through plain data. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointerSegments(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

interface RefTarget {
  document: unknown;
  /** The document's base URI, for the relative refs inside it. */
  base: string | undefined;
  pointer: string;
}

const idOf = (document: unknown) => {
  const id = (document as { $id?: unknown } | null)?.$id;
  return typeof id === 'string' ? id : undefined;
};

/** Where a `$ref` leads: the current document or a registered one, and the pointer inside. */
function followRef(ref: string, current: RefTarget, documents: ReadonlyMap<string, unknown>): RefTarget {
  const hash = ref.indexOf('#');
  const address = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  if (address === '') return { ...current, pointer };
  let uri = address;
  try {
    uri = new URL(address, current.base).href;
  } catch {
    // No usable base: look the address up as written.
  }
  const document = documents.get(uri);
  return { document, base: idOf(document) ?? uri, pointer };
}

/**
 * Follows a keyword location through a schema, resolving `$ref`s on the way
 * ("#/properties/a/$ref/type" continues inside the referenced schema): local ones, and ones
 * into `documents` (registered schemas by URI). Anchors are not followed (undefined).
 */
export function schemaValueAt(root: unknown, keywordLocation: string, documents: ReadonlyMap<string, unknown> = new Map()): unknown {
  let current: RefTarget = { document: root, base: idOf(root), pointer: '' };
  let node = root;
  for (const segment of pointerSegments(keywordLocation)) {
    if (node === null || typeof node !== 'object') return undefined;
    const record = node as Record<string, unknown>;
    if (segment === '$ref' && typeof record.$ref === 'string') {
      current = followRef(record.$ref, current, documents);
      if (current.pointer !== '' && !current.pointer.startsWith('/')) return undefined;
      node = valueAt(current.document, `#${current.pointer}`);
      continue;
    }
    node = record[segment];
  }
  return node;
}

/** Longer property names are shown clipped: a message must not echo a 100 KB name. */
const NAME_LIMIT = 64;

/** "/options/tags/1" → "options.tags[1]"; the whole arguments object is "arguments". */
export function argumentPath(pointer: string): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return 'arguments';
  return segments
    .map((whole, index) => {
      const segment = whole.length > NAME_LIMIT ? `${whole.slice(0, NAME_LIMIT)}…` : whole;
      if (/^\d+$/.test(segment)) return `[${segment}]`;
      const safe = /^[A-Za-z_$][\w$-]*$/.test(segment) ? segment : JSON.stringify(segment);
      return index === 0 ? safe : `.${safe}`;
    })
    .join('');
}
