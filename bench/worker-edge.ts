/**
 * The Worker's two edge budgets alone, without the rest of `runtimes` (its warm CPU loops, Upstash
 * and the other runtimes' cold starts): the bundle as `wrangler deploy --dry-run` builds it, and a
 * new isolate's first dispatch CPU, median of WORKER_EDGE_RUNS new Miniflares.
 */
import { TRIVIAL_WORKER, WORKERD_GATEWAY_BINDINGS, workerdColdStart, type ColdStartRun } from './cold-starts.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { buildWorker } from './runtime-builds.ts';
import { firstDispatchVerdict, workerBundleFigures } from './runtimes.ts';
import { median } from './stats.ts';

const WORKER_EDGE_RUNS = 7;

async function coldRuns(name: string, run: () => Promise<ColdStartRun>): Promise<Figures> {
  const runs: ColdStartRun[] = [];
  for (let i = 1; i <= WORKER_EDGE_RUNS; i++) {
    progress(`worker-edge: new isolate ${name} (${i}/${WORKER_EDGE_RUNS})`);
    runs.push(await run());
  }
  const out: Figures = {};
  for (const part of ['first_request_main_thread_cpu_ms', 'first_request_cpu_ms', 'second_request_cpu_ms', 'ready_ms', 'ready_cpu_ms']) {
    out[`${name}_${part}`] = round(median(runs.map((r) => r.parts[part])));
  }
  out[`${name}_first_request_main_thread_cpu_runs_ms`] = runs.map((r) => r.parts.first_request_main_thread_cpu_ms.toFixed(1)).join(' / ');
  return out;
}

export const workerEdge: BenchModule = {
  name: 'worker-edge',
  title: `The Worker's bundle (bytes, gzip) and a new isolate's first dispatch CPU in workerd (ms, median of ${WORKER_EDGE_RUNS})`,
  async run() {
    progress('worker-edge: building the Worker (wrangler deploy --dry-run)');
    const worker = await buildWorker();
    try {
      const gateway = await coldRuns('workerd', workerdColdStart('workerd', { scriptPath: worker.file }, WORKERD_GATEWAY_BINDINGS).run);
      const trivial = await coldRuns('workerd_trivial', workerdColdStart('workerd_trivial', TRIVIAL_WORKER, {}).run);
      return {
        ...workerBundleFigures(worker),
        ...gateway,
        ...trivial,
        workerd_first_dispatch_cpu_verdict: firstDispatchVerdict(Number(gateway.workerd_first_request_main_thread_cpu_ms), WORKER_EDGE_RUNS),
      };
    } finally {
      worker.remove();
    }
  },
};
