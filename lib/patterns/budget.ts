import { PatternError } from './pattern-error.ts';

/**
 * Steps of matching work one check may spend: two per character read through the matcher's
 * cache, up to three per instruction and character outside it (a pattern and input built to
 * defeat the cache), and the building of each character test. A step is 5-20 ns once the
 * matcher's code is optimised (the whole budget is a few milliseconds), several times that on a
 * process's first checks or on a loaded machine. No 30-character input can reach it: that costs
 * at most 30 × 3 × MAX_PROGRAM_SIZE = 180,000.
 */
export const DEFAULT_PATTERN_BUDGET = 500_000;

/**
 * Steps one request may spend, over all its calls' validations and policy decisions: 10-30 ms.
 * Without it a batch of 128 calls, each with a schema pattern and a rule pattern, would buy 256
 * check budgets: over a second of blocked event loop per request.
 */
export const REQUEST_PATTERN_BUDGET = 1_500_000;

/**
 * And the milliseconds one request's matching may block the process for, in all: steps are
 * slower in code not yet optimised and on a loaded machine, time is not. Where the clock stands
 * still while code runs (Workers), the steps alone bound it.
 */
export const REQUEST_PATTERN_MILLISECONDS = 40;

/** Steps between two looks at the clock (a look costs far less than this many steps). */
const STEPS_PER_CLOCK = 10_000;

/** Matching would have blocked for too long: the value is refused, never half-checked. */
export class PatternBudgetError extends PatternError {
  constructor(message: string) {
    super(message);
    this.name = 'PatternBudgetError';
  }
}

/** Matching work that may still be spent, in steps and optionally in time; once spent, it stays spent. */
export class PatternBudget {
  readonly units: number;
  readonly milliseconds: number;
  #used = 0;
  #outOfTime = false;
  /** Time spent running before the current span, and when the current span started. */
  #elapsed = 0;
  #since: number | undefined;
  #unclocked = 0;

  constructor(units: number, milliseconds = Infinity) {
    this.units = units;
    this.milliseconds = milliseconds;
  }

  get spent(): boolean {
    return this.#used > this.units || this.#outOfTime;
  }

  /** Steps spent so far. */
  get used(): number {
    return this.#used;
  }

  spend(units: number): void {
    this.#used += units;
    if (this.milliseconds !== Infinity && (this.#unclocked += units) >= STEPS_PER_CLOCK) {
      this.#unclocked = 0;
      const now = performance.now();
      this.#outOfTime ||= this.#elapsed + (now - (this.#since ?? now)) > this.milliseconds;
    }
    if (this.spent) throw new PatternBudgetError('the matching budget is spent');
  }

  /** Marks the span in which the budget runs (withPatternBudget): time counts only inside one. */
  begin(): void {
    this.#since = performance.now();
  }

  end(): void {
    if (this.#since !== undefined) this.#elapsed += performance.now() - this.#since;
    this.#since = undefined;
  }
}

/** A request's budget: REQUEST_PATTERN_BUDGET steps and REQUEST_PATTERN_MILLISECONDS, shared by all its calls. */
export function requestPatternBudget(): PatternBudget {
  return new PatternBudget(REQUEST_PATTERN_BUDGET, REQUEST_PATTERN_MILLISECONDS);
}

/**
 * The budgets charged by matching right now, outermost first (a request's, a validation's, one
 * test's). Only `withPatternBudget` changes it, and it always leaves it as it found it before
 * returning: checks are synchronous, so while one runs nothing else does, and between them the
 * stack is empty. Concurrent requests (which interleave only at `await`) never see each other's.
 */
const running: PatternBudget[] = [];

/**
 * Runs `check`, which must be synchronous, with `budget` (a new one of that many units, or a
 * request's shared one) charged by every pattern it tests, on top of the budgets already
 * running: each of them must last. A budget already spent refuses at once.
 */
export function withPatternBudget<T>(check: () => T, budget: PatternBudget | number = DEFAULT_PATTERN_BUDGET): T {
  const entry = typeof budget === 'number' ? new PatternBudget(budget) : budget;
  if (entry.spent) throw new PatternBudgetError('the matching budget is spent');
  // Already running (a request's budget handed down again): charged once, not twice.
  if (running.includes(entry)) return check();
  running.push(entry);
  entry.begin();
  try {
    const result = check();
    if (result instanceof Promise) throw new TypeError('withPatternBudget runs synchronous checks only: a budget cannot follow work across an await');
    return result;
  } finally {
    entry.end();
    running.pop();
  }
}

/** Charges matching work to every running budget (the matcher runs inside one). */
export function spendPatternBudget(units: number): void {
  for (let i = 0; i < running.length; i++) running[i].spend(units);
}
