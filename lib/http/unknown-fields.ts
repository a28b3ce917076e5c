/**
 * Fields a request object of toolgate's own does not have. A misnamed field must not be dropped
 * silently (a call sent with `id` instead of `call_id` would get a fresh id on every retry), so
 * each one is named, with the field probably meant where there is one:
 * `calls[0].id: unknown field; the call id field is call_id`.
 */

/** Words people and models use for toolgate's fields: misnamed (lower case, no `_`/`-`) → the field and the hint. */
const MISNAMINGS: ReadonlyArray<{ field: string; hint: string; names: readonly string[] }> = [
  { field: 'call_id', hint: 'the call id field is call_id', names: ['id', 'callid', 'toolcallid', 'tooluseid', 'callidentifier'] },
  { field: 'name', hint: 'the tool name field is name', names: ['tool', 'toolname', 'function', 'functionname', 'fn'] },
  { field: 'arguments', hint: 'the tool arguments field is arguments', names: ['args', 'arg', 'argument', 'input', 'inputs', 'parameters', 'params', 'kwargs'] },
  { field: 'thread_id', hint: 'the thread id field is thread_id', names: ['thread', 'threadid', 'conversation', 'conversationid', 'session', 'sessionid', 'chatid'] },
  { field: 'calls', hint: 'the calls field is calls', names: ['call', 'functioncalls', 'toolcall', 'requests'] },
  { field: 'parallel', hint: 'the field that runs the calls concurrently is parallel', names: ['paralleltoolcalls', 'concurrent', 'concurrency', 'parallelism'] },
  { field: 'format', hint: 'the provider shape is named by format', names: ['provider', 'shape', 'dialect'] },
  { field: 'tenant', hint: 'the tenant field is tenant', names: ['tenantid', 'tenantname', 'org', 'organization'] },
  { field: 'decision', hint: 'the decision field is decision ("approve" or "reject")', names: ['action', 'verdict', 'approve', 'approved', 'outcome', 'status', 'choice'] },
  { field: 'reason', hint: 'the reason field is reason', names: ['comment', 'note', 'message', 'justification', 'why'] },
  { field: 'principal', hint: "the key owner's name field is principal", names: ['name', 'user', 'username', 'subject', 'owner', 'principalid'] },
  { field: 'scopes', hint: 'the scopes field is scopes (an array)', names: ['scope', 'permissions', 'roles', 'grants'] },
];

/** Long enough for any real field name; a longer key is shown cut and never compared. */
const MAX_SHOWN_KEY = 64;
/** Problems listed in full or by path; a body with thousands of unknown fields still gets a short message. */
const MAX_LISTED = 5;

const normalize = (key: string) => key.toLowerCase().replace(/[-_\s]/gu, '');

export interface KnownFields {
  /** The fields the object may carry. */
  fields: readonly string[];
  /** Said when no likely field is found (default: the list of fields). */
  otherwise?: string;
  /** Hints for particular unknown keys, checked first (e.g. a provider's field sent without `format`). */
  hints?: Readonly<Record<string, string>>;
}

/** One unknown key of an object. Its path and hint are worked out only when a message shows them (a body may hold 100,000 keys). */
export class UnknownField {
  readonly #key: string;
  readonly #base: string;
  readonly #known: KnownFields;

  constructor(key: string, base: string, known: KnownFields) {
    this.#key = key;
    this.#base = base;
    this.#known = known;
  }

  get path(): string {
    return fieldPath(this.#base, this.#key);
  }

  describe(): string {
    return `${this.path}: unknown field; ${hintFor(this.#key, this.#known)}`;
  }
}

/** The unknown keys of `value` (an object at `base`, '' for the body itself). */
export function findUnknownFields(value: Record<string, unknown>, known: KnownFields, base = ''): UnknownField[] {
  const allowed = allowedSet(known);
  return Object.keys(value).filter((key) => !allowed.has(key)).map((key) => new UnknownField(key, base, known));
}

const allowedSets = new WeakMap<KnownFields, ReadonlySet<string>>();

function allowedSet(known: KnownFields): ReadonlySet<string> {
  let set = allowedSets.get(known);
  if (!set) allowedSets.set(known, (set = new Set(known.fields)));
  return set;
}

/** One message for all the unknown fields found: the first with its hint, the next few by path. */
export function describeUnknownFields(found: readonly UnknownField[]): string | undefined {
  if (found.length === 0) return undefined;
  const [first, ...rest] = found;
  if (rest.length === 0) return first.describe();
  const listed = rest.slice(0, MAX_LISTED).map((f) => f.path);
  const more = rest.length > MAX_LISTED ? `, and ${rest.length - MAX_LISTED} more` : '';
  return `${first.describe()} (also unknown: ${listed.join(', ')}${more})`;
}

function hintFor(key: string, known: KnownFields): string {
  const own = known.hints && Object.hasOwn(known.hints, key) ? known.hints[key] : undefined;
  if (own !== undefined) return own;
  const listed = known.otherwise ?? `the fields are ${known.fields.join(', ')}`;
  if (key.length > MAX_SHOWN_KEY) return listed;
  const name = normalize(key);
  const misnamed = MISNAMINGS.find((m) => known.fields.includes(m.field) && m.names.includes(name));
  if (misnamed) return misnamed.hint;
  const near = nearestField(name, known.fields);
  return near !== undefined ? `did you mean ${near}?` : listed;
}

/** The one field a typo of `name` probably was: same letters but case and separators, or one or two edits away. */
function nearestField(name: string, fields: readonly string[]): string | undefined {
  const budget = name.length >= 6 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = budget + 1;
  let tied = false;
  for (const field of fields) {
    const distance = editDistance(name, normalize(field));
    if (distance < bestDistance) [best, bestDistance, tied] = [field, distance, false];
    else if (distance === bestDistance) tied = true;
  }
  return tied ? undefined : best;
}

/** Levenshtein distance with adjacent transpositions (optimal string alignment); inputs are short. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** `calls[0].id`; a key that is not a plain name is quoted, cut to a readable length, non-ASCII escaped. */
function fieldPath(base: string, key: string): string {
  if (/^[A-Za-z_$][\w$]*$/u.test(key) && key.length <= MAX_SHOWN_KEY) return base === '' ? key : `${base}.${key}`;
  const cut = key.length > MAX_SHOWN_KEY;
  // Per UTF-16 unit (no `u` flag): a pair cut in half is escaped like any other unit.
  const quoted = JSON.stringify(cut ? key.slice(0, MAX_SHOWN_KEY) : key).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${base}[${quoted}${cut ? '…' : ''}]`;
}
