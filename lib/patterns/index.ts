export { checkPattern } from './check-pattern.ts';
export { compileSafePattern, type SafePattern, type SafePatternOptions } from './safe-pattern.ts';
export { DEFAULT_PATTERN_BUDGET, PatternBudget, PatternBudgetError, REQUEST_PATTERN_BUDGET, REQUEST_PATTERN_MILLISECONDS, requestPatternBudget, withPatternBudget } from './budget.ts';
export { PatternError } from './pattern-error.ts';
export { MAX_PROGRAM_SIZE } from './program.ts';
