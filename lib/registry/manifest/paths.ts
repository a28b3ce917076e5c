import { pointerSegments } from '../../validation/json-pointer.ts';

/** "/tools/2/executor" → "$.tools[2].executor": the notation manifest problems are reported in. */
export function jsonPath(pointer: string): string {
  return pointerSegments(pointer).reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    return /^[A-Za-z_$][\w$]*$/.test(segment) ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
  }, '$');
}

/** Appends a dotted/bracketed relative path ("properties.a.type") to a JSON path. */
export function joinPath(base: string, relative: string): string {
  if (relative === '') return base;
  return relative.startsWith('[') ? `${base}${relative}` : `${base}.${relative}`;
}

/** A member of the object at `base`: `.name` when it is an identifier, `["x-api-key"]` otherwise. */
export function memberPath(base: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}
