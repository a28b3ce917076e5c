import { appendPointer, argumentPath } from './json-pointer.ts';

/** What an engine reports about one violation, before it is put into words. */
export interface RawViolation {
  keyword: string;
  /** Where in the arguments the violation is. */
  pointer: string;
  /** The keyword's value in the schema (the expectation). */
  expected: unknown;
  /** The value found in the arguments at `pointer`. */
  actual: unknown;
  /** For required/dependentRequired/additionalProperties: the property concerned. */
  property?: string;
  /** For dependentRequired: the property whose presence makes `property` required. */
  trigger?: string;
  /** Set when the violation is about a property's name (propertyNames), not its value. */
  propertyName?: string;
  /** The engine's own wording, used when we have nothing better. */
  fallback: string;
}

/**
 * Messages quote arguments and schema values, each of which may be huge (a 500 KB string, an
 * enum of 10,000 values): quotes and lists are clipped, so one message stays a few hundred
 * characters whatever the input.
 */
const QUOTE_LIMIT = 80;
const LIST_LIMIT = 300;

const clip = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/** A value as JSON, clipped: `"abc"`, `{"a":1}`, `"aaaa…`. */
function quote(value: unknown): string {
  // Slice a long string before stringifying it: a megabyte would be copied to keep 80 characters.
  const text = JSON.stringify(typeof value === 'string' ? value.slice(0, QUOTE_LIMIT + 1) : value);
  return clip(String(text), QUOTE_LIMIT);
}

/** Items joined up to LIST_LIMIT characters, then how many are left out. */
export function listClipped(items: readonly unknown[], show: (item: unknown) => string, separator: string): string {
  const shown: string[] = [];
  let length = 0;
  for (const item of items) {
    const text = show(item);
    if (shown.length > 0 && length + text.length > LIST_LIMIT) break;
    shown.push(text);
    length += text.length + separator.length;
  }
  const rest = items.length - shown.length;
  return shown.join(separator) + (rest > 0 ? ` (and ${rest} more)` : '');
}

/** Describes a value briefly: `string "abc"`, `number 5`, `an array`, `an object`. */
/** A value as JSON for a message that echoes what was sent: cut to `max` characters (a body may hold a megabyte). */
export function clippedJson(value: unknown, max = 80): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > max ? `${json.slice(0, max)}…` : json;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  return `${typeof value} ${String(value)}`;
}

function typeName(type: unknown): string {
  if (Array.isArray(type)) return type.map(typeName).join(' or ');
  if (type === 'object' || type === 'array' || type === 'integer') return `an ${type}`;
  if (type === 'null') return 'null';
  return `a ${String(type)}`;
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? listClipped(values, quote, ', ') : quote(values);
}

/** A one-line summary of a schema branch, for anyOf/oneOf messages. */
function branchSummary(branch: unknown): string {
  if (branch === true) return 'anything';
  if (branch === false || branch === null || typeof branch !== 'object') return 'nothing';
  const record = branch as Record<string, unknown>;
  if ('const' in record) return quote(record.const);
  if (Array.isArray(record.enum)) return `one of ${listValues(record.enum)}`;
  if (record.type !== undefined) return typeName(record.type);
  if (typeof record.$ref === 'string') return clip(record.$ref.split('/').pop() ?? 'a schema', QUOTE_LIMIT);
  return 'a schema';
}

type Describe = (v: RawViolation) => string;

const plural = (n: unknown, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

const DESCRIBERS: Record<string, Describe> = {
  type: (v) => `must be ${typeName(v.expected)}, got ${describeValue(v.actual)}`,
  enum: (v) => `must be one of ${listValues(v.expected)}, got ${quote(v.actual)}`,
  const: (v) => `must be exactly ${quote(v.expected)}, got ${quote(v.actual)}`,
  minLength: (v) => `must be at least ${plural(v.expected, 'character')} long`,
  maxLength: (v) => `must be at most ${plural(v.expected, 'character')} long`,
  minimum: (v) => `must be >= ${String(v.expected)}, got ${String(v.actual)}`,
  maximum: (v) => `must be <= ${String(v.expected)}, got ${String(v.actual)}`,
  exclusiveMinimum: (v) => `must be > ${String(v.expected)}, got ${String(v.actual)}`,
  exclusiveMaximum: (v) => `must be < ${String(v.expected)}, got ${String(v.actual)}`,
  multipleOf: (v) => `must be a multiple of ${String(v.expected)}, got ${String(v.actual)}`,
  pattern: (v) => `must match the pattern /${clip(String(v.expected), LIST_LIMIT)}/, got ${describeValue(v.actual)}`,
  format: (v) => `must be a valid ${clip(String(v.expected), QUOTE_LIMIT)}, got ${describeValue(v.actual)}`,
  minItems: (v) => `must have at least ${plural(v.expected, 'item')}`,
  maxItems: (v) => `must have at most ${plural(v.expected, 'item')}`,
  uniqueItems: () => 'must not contain duplicate items',
  minProperties: (v) => `must have at least ${plural(v.expected, 'property')}`,
  maxProperties: (v) => `must have at most ${plural(v.expected, 'property')}`,
  anyOf: (v) => `must match one of: ${listClipped(v.expected as unknown[], branchSummary, ' | ')}`,
  oneOf: (v) => `must match exactly one of: ${listClipped(v.expected as unknown[], branchSummary, ' | ')}`,
  not: () => 'has a value that is not allowed here',
  false: () => 'is not allowed',
  contains: () => 'must contain at least one item of the expected shape',
};

/** Describers that do not quote the schema's value. */
const NEEDS_NO_EXPECTATION = new Set(['uniqueItems', 'not', 'false', 'contains']);

export interface DescribedViolation {
  pointer: string;
  /** The rule alone ("must be a string, got number 5"), for callers that print the path themselves. */
  detail: string;
  /** A whole sentence naming the argument. */
  message: string;
}

/** Puts one violation into words a model can act on. */
export function describeViolation(v: RawViolation): DescribedViolation {
  if ((v.keyword === 'required' || v.keyword === 'dependentRequired') && v.property !== undefined) {
    const pointer = appendPointer(v.pointer, v.property);
    const where = v.pointer === '' ? 'argument' : 'property';
    const because = v.trigger === undefined ? '' : ` when \`${argumentPath(appendPointer(v.pointer, v.trigger))}\` is given`;
    return { pointer, detail: `is required${because}`, message: `missing required ${where} \`${argumentPath(pointer)}\`${because}` };
  }
  if ((v.keyword === 'additionalProperties' || v.keyword === 'unevaluatedProperties') && v.property !== undefined) {
    const pointer = appendPointer(v.pointer, v.property);
    const where = v.pointer === '' ? 'argument' : 'property';
    return { pointer, detail: 'is not allowed here', message: `unexpected ${where} \`${argumentPath(pointer)}\` is not allowed` };
  }
  const describe = Object.hasOwn(DESCRIBERS, v.keyword) ? DESCRIBERS[v.keyword] : undefined;
  // Without the schema's value (a location the engine could not map back) a describer would
  // print "undefined" or throw; the engine's own wording is the honest fallback.
  const known = v.expected !== undefined || NEEDS_NO_EXPECTATION.has(v.keyword);
  const rule = describe && known ? describe(v) : v.fallback;
  const detail = v.propertyName === undefined ? rule : `has a property name ${quote(v.propertyName)} that ${rule}`;
  return { pointer: v.pointer, detail, message: `\`${argumentPath(v.pointer)}\` ${detail}` };
}

/** Adds the list of allowed names to an "unexpected argument" message when the schema has one. */
export function allowedPropertiesHint(schemaAtParent: unknown): string {
  if (schemaAtParent === null || typeof schemaAtParent !== 'object') return '';
  const properties = (schemaAtParent as Record<string, unknown>).properties;
  if (properties === null || typeof properties !== 'object') return '';
  const names = Object.keys(properties);
  return names.length > 0 ? ` (allowed: ${listClipped(names, String, ', ')})` : '';
}
