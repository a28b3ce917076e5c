/**
 * Matching budgets as attacked: a request's budget is shared by all its checks (a batch cannot buy
 * one per call), each check's own budget still applies inside it, and concurrent requests, which
 * interleave at every await, never charge or see each other's budget.
 */
import { describe, expect, it } from 'vitest';
import { compileSafePattern, DEFAULT_PATTERN_BUDGET, PatternBudget, PatternBudgetError, REQUEST_PATTERN_BUDGET, requestPatternBudget, withPatternBudget } from '../../lib/patterns/index.ts';

/** Each position starts a new set of 600 threads: the matcher's cache cannot absorb it. */
const CRAFTED = '[ab]*a[ab]{600}';

function aperiodic(length: number, seed: number): string {
  let state = seed;
  return Array.from({ length }, () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) >> 16) & 1 ? 'a' : 'b').join('');
}

/** Checks values until the budget refuses one: how many passed. */
function checksUntilRefused(budget: PatternBudget, limit = 1000): number {
  const pattern = compileSafePattern(CRAFTED, 'u', { wholeValue: true });
  for (let i = 0; i < limit; i++) {
    try {
      withPatternBudget(() => pattern.test(aperiodic(700, i + 1)), budget);
    } catch (error) {
      expect(error).toBeInstanceOf(PatternBudgetError);
      return i;
    }
  }
  return limit;
}

describe('pattern budgets', () => {
  it('shares one budget between the checks of a request: a few pass, then every check is refused, cheap ones too', () => {
    const budget = new PatternBudget(REQUEST_PATTERN_BUDGET);
    const passed = checksUntilRefused(budget);
    // One check of a 700-character value costs far less than a check's budget, many times less than a request's.
    expect(passed).toBeGreaterThan(0);
    expect(passed).toBeLessThan(100);
    expect(budget.spent).toBe(true);
    const cheap = compileSafePattern('^a$');
    expect(() => withPatternBudget(() => cheap.test('a'), budget)).toThrow(PatternBudgetError);
    // Outside the spent budget, the same check runs.
    expect(cheap.test('a')).toBe(true);
  });

  it("keeps each check's own budget inside a request's: one long value cannot take the whole request", () => {
    const budget = new PatternBudget(Number.MAX_SAFE_INTEGER);
    const pattern = compileSafePattern(`${CRAFTED}$`);
    expect(() => withPatternBudget(() => pattern.test(aperiodic(100_000, 7)), budget)).toThrow(/a value of 100000 characters is too long or too varied/);
    expect(budget.used).toBeGreaterThan(DEFAULT_PATTERN_BUDGET);
    expect(budget.used).toBeLessThan(2 * DEFAULT_PATTERN_BUDGET);
    expect(budget.spent).toBe(false);
  });

  it('charges reading through the cache too: many long values against many cheap patterns add up', () => {
    const budget = new PatternBudget(REQUEST_PATTERN_BUDGET);
    const rules = Array.from({ length: 50 }, (_, i) => compileSafePattern(`.*x${i}`, 'u', { wholeValue: true }));
    const value = 'ab'.repeat(100_000);
    let checked = 0;
    expect(() =>
      withPatternBudget(() => {
        for (const rule of rules) {
          rule.test(value);
          checked++;
        }
      }, budget),
    ).toThrow(PatternBudgetError);
    // 200,000 characters at two steps each: the budget holds a few such reads, not fifty.
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThan(10);
  });

  it('keeps concurrent requests apart: interleaved at every await, one spends its budget, the other is untouched', async () => {
    const attacker = requestPatternBudget();
    const neighbour = requestPatternBudget();
    const pattern = compileSafePattern(CRAFTED, 'u', { wholeValue: true });
    const plain = compileSafePattern('^[ab]+$');
    const results: string[] = [];
    const attack = async () => {
      for (let i = 0; i < 200; i++) {
        await Promise.resolve();
        try {
          withPatternBudget(() => pattern.test(aperiodic(700, i + 1)), attacker);
        } catch {
          results.push('attacker refused');
          return;
        }
      }
    };
    const neighbourly = async () => {
      for (let i = 0; i < 200; i++) {
        await Promise.resolve();
        results.push(withPatternBudget(() => plain.test(aperiodic(700, i + 1)), neighbour) ? 'neighbour ok' : 'neighbour no');
      }
    };
    await Promise.all([attack(), neighbourly()]);
    expect(results).toContain('attacker refused');
    expect(results.filter((r) => r === 'neighbour ok')).toHaveLength(200);
    expect(attacker.spent).toBe(true);
    expect(neighbour.spent).toBe(false);
    expect(neighbour.used).toBeLessThan(attacker.used);
  });

  it('runs synchronous checks only, and leaves no budget running after one throws', () => {
    const budget = new PatternBudget(10);
    expect(() => withPatternBudget(() => Promise.resolve(true), budget)).toThrow(/synchronous checks only/);
    const pattern = compileSafePattern(CRAFTED);
    expect(() => withPatternBudget(() => pattern.test(aperiodic(700, 1)), budget)).toThrow(PatternBudgetError);
    // Nothing of the spent budget is left running: a check outside it has its own.
    expect(compileSafePattern('^[ab]+$').test(aperiodic(700, 1))).toBe(true);
  });

  it("stops a request's budget by time as well as by steps, where the clock runs", () => {
    // No time at all: refused at the first look at the clock, however many steps are left.
    const budget = new PatternBudget(Number.MAX_SAFE_INTEGER, -1);
    expect(checksUntilRefused(budget)).toBeLessThan(5);
    expect(budget.used).toBeLessThan(REQUEST_PATTERN_BUDGET);
  });
});
