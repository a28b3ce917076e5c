import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denoColdStart, lambdaColdStart, nodeColdStart, TRIVIAL_WORKER, WORKERD_GATEWAY_BINDINGS, workerdColdStart, type ColdStartRun, type ColdStartTarget } from './cold-starts.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { buildLambdaBundle, buildWorker, type BuiltArtifact, type WorkerBuild } from './runtime-builds.ts';
import { median } from './stats.ts';
import { CLOCK_TICKS_PER_SECOND } from './workerd.ts';
import { MEASURED, measureWorkerdCpu, MEMORY_STORE, WARMUP, withUpstash, type PerRequest, type WorkerdCpu } from './workerd-cpu.ts';

/** The budgets: the Worker's size gzipped, and the CPU time per request of the Workers free plan. */
const BUDGET_GZIP_BYTES = 300 * 1024;
const BUDGET_CPU_MS = 10;
const COLD_START_RUNS = 3;

/** The Worker's sizes and its budget verdict (also reported by `worker-edge`). */
export function workerBundleFigures(worker: WorkerBuild): Figures {
  // The larger of our level-9 gzip and wrangler's own figure, so the verdict never flatters.
  const gzipBytes = Math.max(worker.gzipBytes, worker.wranglerGzipBytes ?? 0);
  return {
    worker_bundle_bytes: worker.rawBytes,
    worker_bundle_gzip9_bytes: worker.gzipBytes,
    worker_wrangler_upload_bytes: worker.wranglerUploadBytes ?? 'not printed',
    worker_wrangler_gzip_bytes: worker.wranglerGzipBytes ?? 'not printed',
    worker_bundle_verdict: verdict('gzip', gzipBytes / 1024, '<=', BUDGET_GZIP_BYTES / 1024, ' KiB'),
  };
}

function bundleFigures(worker: WorkerBuild, lambda: BuiltArtifact): Figures {
  return {
    ...workerBundleFigures(worker),
    lambda_bundle_bytes: lambda.rawBytes,
    lambda_bundle_gzip9_bytes: lambda.gzipBytes,
  };
}

function perRequestFigures(prefix: string, figures: PerRequest): Figures {
  const out: Figures = {
    [`${prefix}_cpu_ms`]: round(figures.statMs),
    [`${prefix}_cpu_schedstat_ms`]: round(figures.schedstatMs),
    [`${prefix}_wall_ms`]: round(figures.wallMs),
  };
  if (figures.storeRequests !== undefined) out[`${prefix}_store_requests`] = round(figures.storeRequests);
  return out;
}

function cpuFigures(store: string, cpu: WorkerdCpu): Figures {
  const prefix = `workerd_${store}`;
  const spare = (1 - cpu.dispatch.statMs / BUDGET_CPU_MS) * 100;
  return {
    ...perRequestFigures(`${prefix}_dispatch`, cpu.dispatch),
    ...perRequestFigures(`${prefix}_healthz`, cpu.healthz),
    [`${prefix}_dispatch_minus_healthz_cpu_ms`]: round(cpu.dispatch.statMs - cpu.healthz.statMs),
    [`${prefix}_threads`]: cpu.threads,
    [`${prefix}_cpu_verdict`]: `${verdict('dispatch CPU', cpu.dispatch.statMs, '<=', BUDGET_CPU_MS, ' ms')}, ${spare.toFixed(1)}% of the limit to spare`,
  };
}

/** Round-robin over the targets, COLD_START_RUNS times, so drift on the machine hits every runtime alike. */
async function coldStarts(targets: ColdStartTarget[]): Promise<Map<string, ColdStartRun[]>> {
  const runs = new Map<string, ColdStartRun[]>(targets.map((t) => [t.name, []]));
  for (let pass = 1; pass <= COLD_START_RUNS; pass++) {
    for (const target of targets) {
      progress(`runtimes: cold start ${target.name} (${pass}/${COLD_START_RUNS})`);
      runs.get(target.name)?.push(await target.run());
    }
  }
  return runs;
}

function coldStartFigures(runs: Map<string, ColdStartRun[]>): Figures {
  const out: Figures = {};
  for (const [name, list] of runs) {
    out[`cold_${name}_ms`] = round(median(list.map((r) => r.totalMs)));
    out[`cold_${name}_runs_ms`] = list.map((r) => r.totalMs.toFixed(0)).join(' / ');
    for (const part of Object.keys(list[0]?.parts ?? {})) out[`cold_${name}_${part}`] = round(median(list.map((r) => r.parts[part])));
  }
  return out;
}

/**
 * The Worker builds its gateway on an isolate's first request, and Cloudflare counts that
 * request's CPU like any other's: the same 10 ms budget, on the isolate's thread.
 */
export function firstDispatchVerdict(cpuMs: number, runs: number): string {
  return `${verdict('a new isolate\'s first dispatch, main thread CPU', cpuMs, '<=', BUDGET_CPU_MS, ' ms')}, median of ${runs}`;
}

async function measureColdStarts(worker: WorkerBuild, lambda: BuiltArtifact): Promise<Figures> {
  const denoDir = mkdtempSync(join(tmpdir(), 'toolgate-bench-deno-'));
  try {
    const deno = denoColdStart(denoDir);
    progress('runtimes: cold start deno with an empty DENO_DIR (fills the transpile cache)');
    const empty = await deno.prime();
    const workerd = workerdColdStart('workerd', { scriptPath: worker.file }, WORKERD_GATEWAY_BINDINGS);
    const trivial = workerdColdStart('workerd_trivial', TRIVIAL_WORKER, {});
    const targets = [nodeColdStart, workerd, trivial, deno, lambdaColdStart('lambda_bundle', lambda.file), lambdaColdStart('lambda_source', join(import.meta.dirname, '../functions/lambda.ts'))];
    const figures = coldStartFigures(await coldStarts(targets));
    return { ...figures, cold_deno_empty_cache_ms: round(empty.totalMs), workerd_first_dispatch_cpu_verdict: firstDispatchVerdict(Number(figures.cold_workerd_first_request_main_thread_cpu_ms), COLD_START_RUNS) };
  } finally {
    rmSync(denoDir, { recursive: true, force: true });
  }
}

async function measure(worker: WorkerBuild, lambda: BuiltArtifact): Promise<Figures> {
  progress(`runtimes: workerd CPU, memory store (${WARMUP} + ${MEASURED} dispatches, then as many GET /healthz)`);
  const memory = await measureWorkerdCpu(worker.file, MEMORY_STORE);
  progress('runtimes: workerd CPU, Upstash (bridge + redis-server)');
  const upstash = await withUpstash((store) => measureWorkerdCpu(worker.file, store));
  return {
    ...bundleFigures(worker, lambda),
    workerd_clock_ticks_per_s: CLOCK_TICKS_PER_SECOND,
    ...cpuFigures('memory', memory),
    ...cpuFigures('upstash', upstash),
    ...(await measureColdStarts(worker, lambda)),
  };
}

export const runtimesBench: BenchModule = {
  name: 'runtimes',
  title: 'Worker/Lambda bundle sizes (bytes, gzip), CPU ms per dispatch inside workerd (/proc), cold start to first dispatch per runtime (ms, median of 3)',
  async run() {
    progress('runtimes: building the Worker (wrangler deploy --dry-run) and the Lambda bundle (esbuild)');
    const worker = await buildWorker();
    try {
      const lambda = await buildLambdaBundle();
      try {
        return await measure(worker, lambda);
      } finally {
        lambda.remove();
      }
    } finally {
      worker.remove();
    }
  },
};
