/** Small JSON-pointer helpers shared by the engines and the message writer. */

export function pointerSegments(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '' || body === '/') return [];
  return body
    .slice(1)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
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

/**
 * Follows a keyword location through a schema, resolving local `$ref`s on the way
 * ("#/properties/a/$ref/type" continues inside the referenced schema).
 */
export function schemaValueAt(root: unknown, keywordLocation: string): unknown {
  let node = root;
  for (const segment of pointerSegments(keywordLocation)) {
    if (node === null || typeof node !== 'object') return undefined;
    const record = node as Record<string, unknown>;
    if (segment === '$ref' && typeof record.$ref === 'string' && record.$ref.startsWith('#')) {
      node = valueAt(root, record.$ref);
      continue;
    }
    node = record[segment];
  }
  return node;
}

/** "/options/tags/1" → "options.tags[1]"; the whole arguments object is "arguments". */
export function argumentPath(pointer: string): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return 'arguments';
  return segments
    .map((segment, index) => {
      if (/^\d+$/.test(segment)) return `[${segment}]`;
      const safe = /^[A-Za-z_$][\w$-]*$/.test(segment) ? segment : JSON.stringify(segment);
      return index === 0 ? safe : `.${safe}`;
    })
    .join('');
}
