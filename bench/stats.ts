import { round } from './harness.ts';

export interface Distribution {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of raw samples (sorted in place on a copy). */
export function distribution(samples: Float64Array): Distribution {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  let sum = 0;
  for (const value of sorted) sum += value;
  return { mean: round(sum / sorted.length), p50: round(at(50)), p90: round(at(90)), p99: round(at(99)), max: round(sorted[sorted.length - 1]) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Times each async call on its own (µs), after `warmup` untimed calls so the JIT has settled. */
export async function timeEachAsync(iterations: number, warmup: number, call: () => Promise<unknown>): Promise<Float64Array> {
  for (let i = 0; i < warmup; i++) await call();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await call();
    samples[i] = (performance.now() - start) * 1000;
  }
  return samples;
}

/** Times each sync call on its own (µs); the result feeds `sink` so V8 cannot drop the work. */
export function timeEachSync(iterations: number, warmup: number, call: () => unknown, sink: (value: unknown) => void): Float64Array {
  for (let i = 0; i < warmup; i++) sink(call());
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    const value = call();
    samples[i] = (performance.now() - start) * 1000;
    sink(value);
  }
  return samples;
}

/**
 * Mean µs per call over one tight loop: no per-call timer reads, which matter when a call
 * costs well under a microsecond.
 */
export function meanOfBatchUs(iterations: number, call: () => unknown, sink: (value: unknown) => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink(call());
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}
