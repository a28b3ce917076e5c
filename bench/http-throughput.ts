import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import type { ServerPorts, ServerWorkerData } from './http-protocol.ts';
import { median } from './stats.ts';
import { medianRatio, runRounds, startServerWorker, targetFigures, warmUp, type Measured, type TargetLoad, type Timing } from './throughput-rounds.ts';

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

type TargetName = 'bare' | 'dispatch' | 'unaudited';
const ORDER: TargetName[] = ['bare', 'dispatch', 'unaudited'];
const TIMING: Timing = { connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS };

/** One request outside the load, to prove each route answers what we think before counting it. */
async function checkTarget(name: TargetName, load: TargetLoad): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${load.port}${load.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...load.headers },
    body: bodyFor(CONNECTIONS, 0), // a thread no connection uses
  });
  const text = await response.text();
  const ok = name === 'bare' ? text === '{"ok":true}' : (JSON.parse(text) as { results?: { status?: string }[] }).results?.[0]?.status === 'ok';
  if (response.status !== 200 || !ok) throw new Error(`${name} route answered ${response.status}: ${text}`);
}

function roundFigures(rounds: Record<TargetName, Measured>[]): Figures {
  const ratio = medianRatio(rounds, 'dispatch', 'bare');
  return {
    connections: CONNECTIONS,
    ...targetFigures('bare', rounds.map((r) => r.bare)),
    ...targetFigures('dispatch', rounds.map((r) => r.dispatch)),
    ...targetFigures('unaudited', rounds.map((r) => r.unaudited)),
    dispatch_to_bare_ratio: round(ratio),
    unaudited_to_bare_ratio: round(medianRatio(rounds, 'unaudited', 'bare')),
    dispatch_to_bare_ratio_runs: rounds.map((r) => round(r.dispatch.rps / r.bare.rps)).join(' / '),
    // What the server's own CPU cost predicts for the ratio, were nothing else competing for the cores.
    cpu_cost_ratio: round(median(rounds.map((r) => r.bare.serverCpuUsPerRequest / r.dispatch.serverCpuUsPerRequest))),
    verdict: verdict('median dispatch/bare', ratio, '>=', BUDGET_RATIO, ''),
  };
}

function targetsFor(ports: ServerPorts): Record<TargetName, TargetLoad> {
  return {
    bare: { port: ports.barePort, path: '/bare', body: bodyFor, headers: {} },
    dispatch: { port: ports.gatewayPort, path: '/v1/dispatch', body: bodyFor, headers: { authorization: `Bearer ${API_KEY}` } },
    unaudited: { port: ports.unauditedPort, path: '/v1/dispatch', body: bodyFor, headers: { authorization: `Bearer ${API_KEY}` } },
  };
}

export const httpThroughput: BenchModule = {
  name: 'http-throughput',
  title: `POST /v1/dispatch (one echo call; also with the audit recorder removed) vs a bare Hono JSON route, @hono/node-server in a worker thread, ${CONNECTIONS} keep-alive connections, ${DURATION_MS / 1000} s per run, median of ${ROUNDS} rounds (req/s)`,
  async run() {
    const workerData: ServerWorkerData = { apiKey: API_KEY };
    const { worker, ports } = await startServerWorker<ServerPorts>(new URL('./http-server-worker.ts', import.meta.url), workerData);
    try {
      const targets = targetsFor(ports);
      for (const name of ORDER) {
        await checkTarget(name, targets[name]);
        progress(`http-throughput: warming up ${name}`);
        await warmUp(targets[name], CONNECTIONS, FIRST_WARMUP_MS);
      }
      return roundFigures(await runRounds(worker, targets, ORDER, ROUNDS, TIMING, 'http-throughput'));
    } finally {
      await worker.terminate();
    }
  },
};
