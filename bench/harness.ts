/** Figures a benchmark module reports: units live in the key's suffix (`_us`, `_ms`, `_rps`). */
export type Figures = Record<string, number | string>;

/**
 * One benchmark. `run` measures and returns its figures; it never prints to stdout (run.ts owns
 * stdout so `--json` stays one clean object) and never fails because of a budget: benchmarks
 * inform, tests assert.
 */
export interface BenchModule {
  name: string;
  /** One line saying what is measured and in what unit. */
  title: string;
  run(): Promise<Figures>;
}

/** Keys ending in this hold a budget verdict ("PASS ..." or "FAIL ..."). */
export const VERDICT_SUFFIX = 'verdict';

/** A readable budget verdict, e.g. `PASS (p99 4.10 µs ≤ 50 µs)`. */
export function verdict(label: string, actual: number, comparison: '<=' | '>=', limit: number, unit: string): string {
  const ok = comparison === '<=' ? actual <= limit : actual >= limit;
  const sign = comparison === '<=' ? '≤' : '≥';
  return `${ok ? 'PASS' : 'FAIL'} (${label} ${round(actual)}${unit} ${sign} ${limit}${unit})`;
}

/** Keeps figures readable in JSON: 3 significant decimals for small values, whole numbers for big ones. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 1000) return Math.round(value);
  return Math.round(value * 1000) / 1000;
}

/** Progress goes to stderr so stdout stays parseable under `--json`. */
export function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}
