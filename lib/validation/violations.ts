import type { DescribedViolation, RawViolation } from './messages.ts';
import { MAX_LISTED_VIOLATIONS, type FailedValidation, type Violation } from './validator.ts';

/** Keywords that only report "something inside failed"; the inner violation says what. */
const WRAPPERS = new Set(['properties', 'patternProperties', 'items', 'prefixItems', '$ref', '$dynamicRef', 'allOf', 'dependentSchemas', 'if', 'then', 'else', 'additionalItems', 'propertyNames']);

/**
 * Keywords whose own message says it all: their inner failures are folded into them (an item
 * that is not what `contains` wants is no violation by itself).
 */
export const FOLDING_KEYWORDS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'contains']);

/** Keywords that reject unknown properties: a violation when their schema is `false`. */
export const REJECTING_KEYWORDS: ReadonlySet<string> = new Set(['additionalProperties', 'unevaluatedProperties']);

/** An engine's raw report, entry by entry, as finishViolations reads it. */
export interface RawReport {
  /** How many entries the engine reported. */
  readonly count: number;
  keyword(i: number): string;
  /** The schema value of entry i's keyword (only asked of additionalProperties/unevaluatedProperties). */
  expected(i: number): unknown;
  /** 1 for an entry inside a failed anyOf/oneOf/contains (see markFolded). */
  readonly folded: Uint8Array;
  /** For entries that only repeat the one before them (the eval-free engine follows a rejected property's entry with the `false` schema it met). */
  repeatsPrevious?(i: number): boolean;
  /** Entry i in engine-neutral form: built only for the entries that are listed, as it costs. */
  raw(i: number): RawViolation;
  describe(violation: RawViolation, i: number): DescribedViolation;
}

/**
 * Marks the entries that are a failed anyOf/oneOf/contains's branch failures. Both engines
 * report such a keyword's branch failures as one unbroken run right beside its own entry
 * (ajv just before it, the eval-free engine just after it), nested keywords' runs inside the
 * outer run: so one pass in the direction that meets the keyword first, holding the outermost
 * open keyword and closing it at the first entry not inside it, marks them all. Linear in the
 * entries, whatever the nesting ($ref chains of anyOf fail 2^depth times).
 */
export function markFolded(
  count: number,
  keywordFirst: boolean,
  isFolding: (i: number) => boolean,
  inside: (i: number, folding: number) => boolean,
): Uint8Array {
  const folded = new Uint8Array(count);
  let open = -1;
  for (let step = 0; step < count; step++) {
    const i = keywordFirst ? step : count - 1 - step;
    if (open !== -1 && inside(i, open)) {
      folded[i] = 1;
      continue;
    }
    open = isFolding(i) ? i : -1;
  }
  return folded;
}

/**
 * Whether an entry is a violation a model needs: wrapper reports are dropped, branch failures
 * are folded into their anyOf/oneOf/contains, a schema-valued additionalProperties leaves it to
 * its inner failures.
 */
function isReported(report: RawReport, i: number): boolean {
  const keyword = report.keyword(i);
  if (WRAPPERS.has(keyword) || report.folded[i] === 1) return false;
  if (REJECTING_KEYWORDS.has(keyword)) return report.expected(i) === false;
  return report.repeatsPrevious?.(i) !== true;
}

/**
 * Turns an engine's raw report into the few violations a model needs, repeats removed, at most
 * `limit` of them (the first, in the engine's order); past those the reported entries are only
 * counted (repeats among them too). One pass; only the listed entries are put into words.
 */
export function finishViolations(report: RawReport, limit: number = MAX_LISTED_VIOLATIONS): FailedValidation {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  let omitted = 0;
  for (let i = 0; i < report.count; i++) {
    if (!isReported(report, i)) continue;
    if (violations.length === limit) {
      omitted++;
      continue;
    }
    const v = report.raw(i);
    const { pointer, message, detail } = report.describe(v, i);
    if (seen.has(message)) continue;
    seen.add(message);
    violations.push({ pointer, keyword: v.keyword, message, detail });
  }
  if (violations.length === 0 && report.count > 0) {
    const first = report.raw(0);
    return { valid: false, violations: [{ pointer: '', keyword: first.keyword, message: first.fallback, detail: first.fallback }] };
  }
  return omitted > 0 ? { valid: false, violations, omitted } : { valid: false, violations };
}

/** The keyword of tooManyProblems' violation: no JSON Schema keyword failed, the engine gave up. */
export const GAVE_UP_KEYWORD = 'size';

/**
 * For arguments an engine cannot even collect the problems of (its stack overflows): one
 * violation that says so, instead of an internal error.
 */
export function tooManyProblems(): FailedValidation {
  const detail = 'have too many problems (or are too large) to check against this schema; send fewer, smaller values';
  return { valid: false, violations: [{ pointer: '', keyword: GAVE_UP_KEYWORD, message: `\`arguments\` ${detail}`, detail }], incomplete: true };
}
