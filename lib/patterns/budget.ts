import { PatternError } from './pattern-error.ts';

/**
 * Steps of matching work one check may spend outside the matcher's cache: 5-20 ns each once the
 * matcher's code is optimised (the whole budget is a few milliseconds), several times that on a
 * process's first checks or on a loaded machine. The cache makes ordinary matching cost nothing
 * against it; a pattern and input built to defeat the cache cost up to three steps per
 * instruction and character, which a long enough input would turn into seconds. No 30-character
 * input can reach it: that costs at most 30 × 3 × MAX_PROGRAM_SIZE = 180,000.
 */
export const DEFAULT_PATTERN_BUDGET = 500_000;

/** Matching would have blocked for too long: the value is refused, never half-checked. */
export class PatternBudgetError extends PatternError {
  constructor(message: string) {
    super(message);
    this.name = 'PatternBudgetError';
  }
}

let remaining: number | undefined;

/**
 * Runs `check` with one budget shared by every pattern it tests (synchronously): a schema with
 * many patterns, or a policy with many rules, gets one budget per check, not one per pattern.
 * Inside a running budget, the outer one keeps applying.
 */
export function withPatternBudget<T>(check: () => T, units: number = DEFAULT_PATTERN_BUDGET): T {
  if (remaining !== undefined) return check();
  remaining = units;
  try {
    return check();
  } finally {
    remaining = undefined;
  }
}

/** Charges matching work to the running budget (the matcher runs inside one). */
export function spendPatternBudget(units: number): void {
  if (remaining === undefined) return;
  remaining -= units;
  if (remaining < 0) throw new PatternBudgetError('the matching budget is spent');
}
