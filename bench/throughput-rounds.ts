/**
 * What the HTTP throughput modules (http-throughput, mcp) share: servers in a worker thread, the
 * load from the main thread, runs in alternating rounds, and the figures of a target's runs.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { CPU_REQUEST, type CpuReply } from './http-protocol.ts';
import { generateLoad, type LoadOptions } from './load-generator.ts';
import { median } from './stats.ts';

/** A route under load: everything but the timing, which the rounds decide. */
export type TargetLoad = Omit<LoadOptions, 'connections' | 'warmupMs' | 'durationMs' | 'onWindow'>;

export interface Timing {
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** 2xx answers the target's `inspect` refused. */
  rejected: number;
  /** Event-loop utilisation of the server thread and of the load generator (main) thread, 0..1. */
  serverElu: number;
  clientElu: number;
  /** Server-thread CPU time per request in the measured window (µs): robust to other load on the machine. */
  serverCpuUsPerRequest: number;
}

/** Starts `url` as a worker thread; its first message says where its servers listen. */
export function startServerWorker<Ports>(url: URL, workerData: unknown): Promise<{ worker: Worker; ports: Ports }> {
  const worker = new Worker(url, { workerData });
  return new Promise((resolve, reject) => {
    worker.once('message', (ports: Ports) => resolve({ worker, ports }));
    worker.once('error', reject);
  });
}

function serverCpuUs(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    worker.once('message', (reply: CpuReply) => resolve(reply.cpuUs));
    worker.postMessage(CPU_REQUEST);
  });
}

export async function measure(worker: Worker, load: TargetLoad, timing: Timing): Promise<Measured> {
  const serverBefore = worker.performance.eventLoopUtilization();
  const clientBefore = performance.eventLoopUtilization();
  const cpu = { start: 0, end: 0 };
  const onWindow = async (edge: 'start' | 'end') => {
    cpu[edge] = await serverCpuUs(worker);
  };
  const result = await generateLoad({ ...load, ...timing, onWindow });
  // Utilisation covers warmup plus measurement: both are under the same full load.
  const serverElu = worker.performance.eventLoopUtilization(serverBefore).utilization;
  const clientElu = performance.eventLoopUtilization(clientBefore).utilization;
  return {
    rps: result.rps,
    p50: result.latencyP50Ms,
    p99: result.latencyP99Ms,
    non2xx: result.non2xx,
    rejected: result.rejected,
    serverElu,
    clientElu,
    serverCpuUsPerRequest: (cpu.end - cpu.start) / result.requests,
  };
}

/** An unmeasured run, so the first round does not pay for JIT tier-up. */
export async function warmUp(load: TargetLoad, connections: number, ms: number): Promise<void> {
  await generateLoad({ ...load, connections, warmupMs: ms, durationMs: 1 });
}

/**
 * `rounds` rounds of every target, the order reversed each round, so drift on a shared machine
 * (other processes, CPU boost, GC) hits every target alike instead of skewing one.
 */
export async function runRounds<Name extends string>(worker: Worker, targets: Record<Name, TargetLoad>, order: Name[], rounds: number, timing: Timing, label: string): Promise<Record<Name, Measured>[]> {
  const results: Record<Name, Measured>[] = [];
  for (let index = 0; index < rounds; index++) {
    const names = index % 2 === 0 ? order : [...order].reverse();
    const measured: Partial<Record<Name, Measured>> = {};
    for (const name of names) {
      progress(`${label}: round ${index + 1}/${rounds}, ${name}`);
      measured[name] = await measure(worker, targets[name], timing);
    }
    results.push(measured as Record<Name, Measured>);
  }
  return results;
}

/** The run with the median req/s (with an odd number of runs, a real run). */
function medianRun(runs: Measured[]): Measured {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export function targetFigures(name: string, runs: Measured[]): Figures {
  const typical = medianRun(runs);
  return {
    [`${name}_rps`]: round(typical.rps),
    [`${name}_rps_runs`]: runs.map((r) => Math.round(r.rps)).join(' / '),
    [`${name}_latency_p50_ms`]: round(typical.p50),
    [`${name}_latency_p99_ms`]: round(typical.p99),
    [`${name}_non2xx`]: runs.reduce((sum, r) => sum + r.non2xx, 0),
    [`${name}_server_cpu_us_per_req`]: round(median(runs.map((r) => r.serverCpuUsPerRequest))),
    // A server in another process (deployed-throughput) has no utilisation to read: NaN, left out.
    ...(runs.some((r) => Number.isNaN(r.serverElu)) ? {} : { [`${name}_server_elu`]: round(mean(runs.map((r) => r.serverElu))) }),
    [`${name}_loadgen_elu`]: round(mean(runs.map((r) => r.clientElu))),
  };
}

/** The median over rounds of one target's req/s divided by another's, taken per round. */
export function medianRatio<Name extends string>(rounds: Record<Name, Measured>[], numerator: Name, denominator: Name): number {
  return median(rounds.map((r) => r[numerator].rps / r[denominator].rps));
}
