/**
 * How long one dispatch request of 128 calls can block the event loop matching a pattern built to
 * defeat the matcher's cache (as a schema pattern and a deny rule: 256 matches), in this process.
 * Before: each match had a budget of its own (what the attack review measured over HTTP: 1.1-1.3 s
 * per request). After: the request's one budget, shared by all its matches.
 */
import { compileSafePattern, PatternBudgetError, requestPatternBudget, withPatternBudget } from '../lib/patterns/index.ts';
import type { Figures } from './harness.ts';
import { round } from './harness.ts';

export const CACHE_DEFEATING_PATTERN = '[ab]*a[ab]{600}';
export const BATCH_CALLS = 128;
export const BATCH_VALUE_LENGTH = 1000;

/** A/b values that never repeat: each position is a new set of 600 threads. */
export function aperiodicValue(length: number, seed: number): string {
  let state = seed;
  return Array.from({ length }, () => (((state = (state * 1103515245 + 12345) & 0x7fffffff) >> 16) & 1 ? 'a' : 'b')).join('');
}

/** Runs the request's 256 matches (schema, then rule, per call), each under its own budget, and on `shared` too when given. */
function matchRequest(values: readonly string[], shared: ReturnType<typeof requestPatternBudget> | undefined): { ms: number; matched: number } {
  const schema = compileSafePattern(CACHE_DEFEATING_PATTERN, 'u');
  const rule = compileSafePattern(CACHE_DEFEATING_PATTERN, 'u', { wholeValue: true });
  const started = performance.now();
  let matched = 0;
  for (const value of values) {
    for (const pattern of [schema, rule]) {
      if (shared?.spent) return { ms: performance.now() - started, matched };
      try {
        if (shared) withPatternBudget(() => pattern.test(value), shared);
        else pattern.test(value);
      } catch (error) {
        if (!(error instanceof PatternBudgetError)) throw error;
      }
      matched++;
    }
  }
  return { ms: performance.now() - started, matched };
}

export function requestStallFigures(figures: Figures): void {
  const values = Array.from({ length: BATCH_CALLS }, (_, i) => aperiodicValue(BATCH_VALUE_LENGTH, i + 1));
  // Warm the matcher up first: the figures are for a process that has run for a while.
  matchRequest(values.slice(0, 4), undefined);
  const before = matchRequest(values, undefined);
  figures.request_stall_before_ms = `${round(before.ms)} (${before.matched} matches, a budget each)`;
  const after = [0, 1, 2].map(() => matchRequest(values, requestPatternBudget())).sort((a, b) => a.ms - b.ms)[1];
  figures.request_stall_after_ms = `${round(after.ms)} (${after.matched} matches before the request's budget ran out)`;
}
