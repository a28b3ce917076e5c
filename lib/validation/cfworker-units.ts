import type { OutputUnit } from '@cfworker/json-schema';
import { fragmentToPointer, pointerSegments, schemaValueAt, valueAt } from './json-pointer.ts';
import type { RawViolation } from './messages.ts';
import { FOLDING_KEYWORDS, markFolded } from './violations.ts';

/** Registered schema documents by URI, for following `$ref`s out of the tool's schema. */
export type Documents = ReadonlyMap<string, unknown>;

/** What one compile needs to turn @cfworker/json-schema's output units into raw violations. */
export interface UnitContext {
  schema: unknown;
  data: unknown;
  documents: Documents;
}

const SLASH = 0x2f;

/** Keywords whose values are maps from names to schemas: a name there is not a keyword. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** The unit names the offending property only in its text: `Property "x" does not ...`. */
function quotedProperty(unit: OutputUnit): string | undefined {
  return /(?:property|Property) "((?:[^"\\]|\\.)*)"/.exec(unit.error)?.[1];
}

/**
 * Schema locations, index for index. The library reports a `false` schema's location as the
 * instance's; the unit before it is the keyword that applied it (a wrapper, a combinator, or a
 * failure beside it in the same branch), which is all the anyOf/oneOf folding needs.
 */
export function unitLocations(units: readonly OutputUnit[]): string[] {
  const locations: string[] = [];
  units.forEach((unit, i) => {
    locations.push(unit.keyword === 'false' ? `${i === 0 ? '#' : locations[i - 1]}/false` : unit.keywordLocation);
  });
  return locations;
}

/** Whether a location runs through propertyNames: such a unit judges a name, not a value. */
function judgesPropertyName(location: string): boolean {
  const segments = pointerSegments(location);
  // Inside the propertyNames schema only: the propertyNames unit itself is a wrapper.
  return segments.some((segment, i) => segment === 'propertyNames' && !SCHEMA_MAPS.has(segments[i - 1]) && i < segments.length - 1);
}

/** `Instance has "a" but does not have "b".` → the trigger and the missing property. */
function dependentPair(unit: OutputUnit): { trigger?: string; property?: string } {
  const match = /^Instance has "(.*)" but does not have "(.*)"\.$/.exec(unit.error);
  return match ? { trigger: match[1], property: match[2] } : {};
}

/** `items: false` after prefixItems: the library reports each extra item; we report the cap. */
function itemsCap(units: readonly OutputUnit[], i: number, context: UnitContext): number | undefined {
  const previous = units[i - 1];
  if (units[i].keyword !== 'false' || previous?.keyword !== 'items') return undefined;
  const parent = schemaValueAt(context.schema, previous.keywordLocation.replace(/\/items$/, ''), context.documents);
  const prefix = (parent as { prefixItems?: unknown } | undefined)?.prefixItems;
  return Array.isArray(prefix) ? prefix.length : undefined;
}

export function toRawViolation(units: readonly OutputUnit[], i: number, location: string, context: UnitContext): RawViolation {
  const unit = units[i];
  const pointer = fragmentToPointer(unit.instanceLocation);
  const cap = itemsCap(units, i, context);
  if (cap !== undefined) {
    const array = pointer.replace(/\/[^/]*$/, '');
    return { keyword: 'maxItems', pointer: array, expected: cap, actual: valueAt(context.data, array), fallback: unit.error };
  }
  const raw: RawViolation = {
    keyword: unit.keyword,
    pointer,
    expected: unit.keyword === 'false' ? false : schemaValueAt(context.schema, unit.keywordLocation, context.documents),
    actual: valueAt(context.data, pointer),
    fallback: unit.error,
  };
  if (unit.keyword === 'required' || unit.keyword === 'additionalProperties' || unit.keyword === 'unevaluatedProperties') {
    raw.property = quotedProperty(unit);
  }
  if (unit.keyword === 'dependentRequired') Object.assign(raw, dependentPair(unit));
  if (judgesPropertyName(location)) {
    // The unit sits at the property's value; the name is the last segment, the object its parent.
    const segments = pointerSegments(pointer);
    raw.propertyName = segments[segments.length - 1];
    raw.pointer = pointer.replace(/\/[^/]*$/, '');
    raw.actual = raw.propertyName;
  }
  return raw;
}

/**
 * Which units are branch failures of a failed anyOf/oneOf/contains (see markFolded): the library
 * puts the keyword's unit first and its branches' units right after it, under its location.
 */
export function foldedUnits(units: readonly OutputUnit[], locations: readonly string[]): Uint8Array {
  return markFolded(
    units.length,
    true,
    (k) => FOLDING_KEYWORDS.has(units[k].keyword),
    (j, k) => {
      const location = locations[j];
      const folding = locations[k];
      return location.length > folding.length && location.charCodeAt(folding.length) === SLASH && location.startsWith(folding);
    },
  );
}
