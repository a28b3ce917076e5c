import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { CPU_REQUEST, type CpuReply, type ServerPorts, type ServerWorkerData } from './http-protocol.ts';
import { generateLoad, type LoadOptions } from './load-generator.ts';
import { median } from './stats.ts';

const CONNECTIONS = 48;
const WARMUP_MS = 1000;
const DURATION_MS = 3000;
/** An unmeasured run per route before the rounds, so the first round does not pay for JIT tier-up. */
const FIRST_WARMUP_MS = 3000;
/**
 * Rounds of (bare, dispatch) pairs, order alternating each round. The ratio is taken per round
 * and its median reported, so drift on a shared machine (other processes, CPU boost, GC) hits
 * both sides of a ratio alike instead of skewing one route.
 */
const ROUNDS = 3;
const BUDGET_RATIO = 0.6;
const API_KEY = 'tg_bench_0123456789abcdef0123456789abcdef';

/**
 * One echo call per request. Each connection is one agent thread (its own thread_id, calls one
 * after another, fresh call ids), as agents use the gateway: audit chains are per thread, and
 * calls of one thread are serialised by design. The bare route gets the same bodies.
 */
const bodyFor = (connection: number, sequence: number) =>
  JSON.stringify({ thread_id: `bench-${connection}`, calls: [{ call_id: `call_${sequence}`, name: 'echo', arguments: { text: 'hello from the benchmark' } }] });

interface Target {
  name: 'dispatch' | 'unaudited' | 'bare';
  load: Omit<LoadOptions, 'connections' | 'warmupMs' | 'durationMs'>;
}

function startServers(): Promise<{ worker: Worker; ports: ServerPorts }> {
  const workerData: ServerWorkerData = { apiKey: API_KEY };
  const worker = new Worker(new URL('./http-server-worker.ts', import.meta.url), { workerData });
  return new Promise((resolve, reject) => {
    worker.once('message', (ports: ServerPorts) => resolve({ worker, ports }));
    worker.once('error', reject);
  });
}

/** One request outside the load, to prove each route answers what we think before counting it. */
async function checkTarget(target: Target): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${target.load.port}${target.load.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.load.headers },
    body: bodyFor(CONNECTIONS, 0), // a thread no connection uses
  });
  const text = await response.text();
  const ok = target.name === 'bare' ? text === '{"ok":true}' : (JSON.parse(text) as { results?: { status?: string }[] }).results?.[0]?.status === 'ok';
  if (response.status !== 200 || !ok) throw new Error(`${target.name} route answered ${response.status}: ${text}`);
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Event-loop utilisation of the server thread and of the load generator (main) thread, 0..1. */
  serverElu: number;
  clientElu: number;
  /** Server-thread CPU time per request in the measured window (µs): robust to other load on the machine. */
  serverCpuUsPerRequest: number;
}

function serverCpuUs(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    worker.once('message', (reply: CpuReply) => resolve(reply.cpuUs));
    worker.postMessage(CPU_REQUEST);
  });
}

async function measure(worker: Worker, target: Target): Promise<Measured> {
  const serverBefore = worker.performance.eventLoopUtilization();
  const clientBefore = performance.eventLoopUtilization();
  const cpu = { start: 0, end: 0 };
  const onWindow = async (edge: 'start' | 'end') => {
    cpu[edge] = await serverCpuUs(worker);
  };
  const result = await generateLoad({ ...target.load, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS, onWindow });
  // Utilisation covers warmup plus measurement: both are under the same full load.
  const serverElu = worker.performance.eventLoopUtilization(serverBefore).utilization;
  const clientElu = performance.eventLoopUtilization(clientBefore).utilization;
  return { rps: result.rps, p50: result.latencyP50Ms, p99: result.latencyP99Ms, non2xx: result.non2xx, serverElu, clientElu, serverCpuUsPerRequest: (cpu.end - cpu.start) / result.requests };
}

/** The run with the median req/s (ROUNDS is odd, so it is a real run). */
function medianRun(runs: Measured[]): Measured {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function targetFigures(name: string, runs: Measured[]): Figures {
  const typical = medianRun(runs);
  return {
    [`${name}_rps`]: round(typical.rps),
    [`${name}_rps_runs`]: runs.map((r) => Math.round(r.rps)).join(' / '),
    [`${name}_latency_p50_ms`]: round(typical.p50),
    [`${name}_latency_p99_ms`]: round(typical.p99),
    [`${name}_non2xx`]: runs.reduce((sum, r) => sum + r.non2xx, 0),
    [`${name}_server_cpu_us_per_req`]: round(median(runs.map((r) => r.serverCpuUsPerRequest))),
    [`${name}_server_elu`]: round(mean(runs.map((r) => r.serverElu))),
    [`${name}_loadgen_elu`]: round(mean(runs.map((r) => r.clientElu))),
  };
}

interface Round {
  bare: Measured;
  dispatch: Measured;
  unaudited: Measured;
}

async function runRounds(worker: Worker, targets: Record<Target['name'], Target>): Promise<Round[]> {
  const rounds: Round[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    const order: Target['name'][] = index % 2 === 0 ? ['bare', 'dispatch', 'unaudited'] : ['unaudited', 'dispatch', 'bare'];
    const measured: Partial<Round> = {};
    for (const name of order) {
      progress(`http-throughput: round ${index + 1}/${ROUNDS}, ${name}`);
      measured[name] = await measure(worker, targets[name]);
    }
    rounds.push(measured as Round);
  }
  return rounds;
}

function roundFigures(rounds: Round[]): Figures {
  const ratios = rounds.map((r) => r.dispatch.rps / r.bare.rps).sort((a, b) => a - b);
  const ratio = ratios[Math.floor(ratios.length / 2)];
  return {
    connections: CONNECTIONS,
    ...targetFigures('bare', rounds.map((r) => r.bare)),
    ...targetFigures('dispatch', rounds.map((r) => r.dispatch)),
    ...targetFigures('unaudited', rounds.map((r) => r.unaudited)),
    dispatch_to_bare_ratio: round(ratio),
    unaudited_to_bare_ratio: round(median(rounds.map((r) => r.unaudited.rps / r.bare.rps))),
    dispatch_to_bare_ratio_runs: rounds.map((r) => round(r.dispatch.rps / r.bare.rps)).join(' / '),
    // What the server's own CPU cost predicts for the ratio, were nothing else competing for the cores.
    cpu_cost_ratio: round(median(rounds.map((r) => r.bare.serverCpuUsPerRequest / r.dispatch.serverCpuUsPerRequest))),
    verdict: verdict('median dispatch/bare', ratio, '>=', BUDGET_RATIO, ''),
  };
}

function targetsFor(ports: ServerPorts): Record<Target['name'], Target> {
  return {
    bare: { name: 'bare', load: { port: ports.barePort, path: '/bare', body: bodyFor, headers: {} } },
    dispatch: { name: 'dispatch', load: { port: ports.gatewayPort, path: '/v1/dispatch', body: bodyFor, headers: { authorization: `Bearer ${API_KEY}` } } },
    unaudited: { name: 'unaudited', load: { port: ports.unauditedPort, path: '/v1/dispatch', body: bodyFor, headers: { authorization: `Bearer ${API_KEY}` } } },
  };
}

async function checkAndWarmUp(target: Target): Promise<void> {
  await checkTarget(target);
  progress(`http-throughput: warming up ${target.name}`);
  await generateLoad({ ...target.load, connections: CONNECTIONS, warmupMs: FIRST_WARMUP_MS, durationMs: 1 });
}

export const httpThroughput: BenchModule = {
  name: 'http-throughput',
  title: `POST /v1/dispatch (one echo call; also with the audit recorder removed) vs a bare Hono JSON route, @hono/node-server in a worker thread, ${CONNECTIONS} keep-alive connections, ${DURATION_MS / 1000} s per run, median of ${ROUNDS} rounds (req/s)`,
  async run() {
    const { worker, ports } = await startServers();
    try {
      const targets = targetsFor(ports);
      for (const target of Object.values(targets)) await checkAndWarmUp(target);
      return roundFigures(await runRounds(worker, targets));
    } finally {
      await worker.terminate();
    }
  },
};
