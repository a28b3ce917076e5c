/**
 * Throughput as deployed: `toolgate serve` exactly as `npm start` runs it (a child process: its
 * exec-server beside it, a SQLite file, the demo tenant, JSON log lines on stdout) beside the
 * reference server (bench/reference-server.ts: the same durable work per call, written plainly)
 * and a bare Hono JSON route, each in a process of its own, loaded by the raw-socket generator
 * from this process. Each request is a new agent thread, as agents arriving one after another are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { generateLoad, jsonTemplate } from './load-generator.ts';
import { echoedOverDispatch, echoedOverMcp, TEXT } from './mcp.ts';
import { childPids, processCpuUs } from './process-cpu.ts';
import { median } from './stats.ts';
import { medianRatio, targetFigures, warmUp, type Measured, type TargetLoad, type Timing } from './throughput-rounds.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 16;
const TIMING: Timing = { connections: CONNECTIONS, warmupMs: 1000, durationMs: 3000 };
const FIRST_WARMUP_MS = 3000;
const ROUNDS = 5;
const DEMO_KEY = 'tg_bench_fedcba9876543210fedcba9876543210';
const REFERENCE_KEY = 'tg_reference_0123456789abcdef01234567';
const START_TIMEOUT_MS = 60_000;
const BUDGET = { reference: 0.9, mcp: 1.0 };

type TargetName = 'bare' | 'reference' | 'deployed' | 'memory' | 'mcp' | 'refused';
/** Reversed every other round; the pairs the ratios compare sit next to each other. */
const ORDER: TargetName[] = ['memory', 'bare', 'refused', 'reference', 'deployed', 'mcp'];

/** A child server: its pid, where it listens, and what it wrote to stdout (drained, counted). */
interface ServerProcess {
  child: ChildProcess;
  pid: number;
  origin: string;
  stdoutBytes(): number;
  stdoutLines(): number;
  stop(): Promise<void>;
}

/**
 * Starts `args` with only PATH, HOME and `env` (a developer's TOOLGATE_STORE must not change what
 * is measured); resolves once its stdout names the URL it listens on. Stdout stays a pipe that is
 * read to the end, as a terminal or a log shipper would: the server pays for writing every line.
 */
function startServer(args: string[], env: Record<string, string>, listening: RegExp): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let head = '';
  let stderr = '';
  const counted = { bytes: 0, lines: 0 };
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${args.join(' ')} did not start within ${START_TIMEOUT_MS / 1000} s:\n${head}\n${stderr}`)), START_TIMEOUT_MS);
    let listened = false;
    const fail = (error: Error) => {
      clearTimeout(timer);
      void stop();
      reject(error);
    };
    child.once('exit', (code) => listened || fail(new Error(`${args.join(' ')} exited (${code}) before it listened:\n${head}\n${stderr}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      counted.bytes += chunk.length;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) counted.lines++;
      if (head.length > 20_000) return;
      head += chunk.toString();
      const origin = listening.exec(head)?.[1];
      if (!origin || child.pid === undefined) return;
      head = head.slice(0, 20_001); // stop looking
      listened = true;
      clearTimeout(timer);
      resolve({ child, pid: child.pid, origin, stdoutBytes: () => counted.bytes, stdoutLines: () => counted.lines, stop });
    });
  });
}

/** `npm start`: node bin/toolgate.js serve, on free loopback ports, in a fresh data folder and workspace. */
function startDeployed(dir: string, store: 'sqlite' | 'memory'): Promise<ServerProcess> {
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    TOOLGATE_DATA_DIR: join(dir, `data-${store}`),
    TOOLGATE_WORKSPACE: join(dir, `workspace-${store}`),
    TOOLGATE_EXEC_PORT: '0',
    TOOLGATE_DEMO_KEY: DEMO_KEY,
    ...(store === 'memory' ? { TOOLGATE_STORE: 'memory' } : {}),
  };
  return startServer(['bin/toolgate.js', 'serve'], env, /toolgate listening on (http:\/\/\S+)/);
}

const AUTH = { authorization: `Bearer ${DEMO_KEY}` };
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...AUTH };

/**
 * A new agent thread for every request (thread ids unique per target, round and request), one
 * echo call each: no thread's audit head is ever cached, as with many agents arriving.
 */
function threadsOf(target: string): (connection: number, sequence: number) => string {
  const run = `${target}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return (connection, sequence) => `t-${run}-${connection}-${sequence}`;
}

/**
 * The bodies, serialized once with their thread and call ids (and MCP's request id) spliced in per
 * request: the generator shares the cores with the servers, so each target must cost it the same.
 */
const dispatchBody = jsonTemplate((slot) => ({ thread_id: slot(0), calls: [{ call_id: slot(1), name: 'echo', arguments: { text: TEXT } }] }));
const refusedBody = jsonTemplate((slot) => ({ thread_id: slot(0), calls: [{ call_id: slot(1), name: 'echo', arguments: { text: TEXT } }], parallel: 'yes' }));
const mcpBody = jsonTemplate((slot) => ({ jsonrpc: '2.0', id: slot(2), method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT }, _meta: { 'toolgate/thread_id': slot(0), 'toolgate/call_id': slot(1) } } }));

function dispatchLoad(origin: string, target: string): TargetLoad {
  const thread = threadsOf(target);
  const body = (connection: number, sequence: number) => dispatchBody(thread(connection, sequence), `call_${sequence}`);
  return { port: Number(new URL(origin).port), path: '/v1/dispatch', body, headers: AUTH, inspect: echoedOverDispatch };
}

/**
 * The gateway's floor: the memory serve refusing each dispatch (400, `parallel` not a boolean)
 * after everything before the pipeline (Host/Origin check, body limit, API key, tenant runtime,
 * reading and parsing the body). What is left above it is the pipeline itself: no store write,
 * audit or log line happens for a refused request.
 */
function refusedLoad(origin: string): TargetLoad {
  const thread = threadsOf('refused');
  const body = (connection: number, sequence: number) => refusedBody(thread(connection, sequence), `call_${sequence}`);
  return { port: Number(new URL(origin).port), path: '/v1/dispatch', body, headers: AUTH };
}

function mcpLoad(origin: string): TargetLoad {
  const thread = threadsOf('mcp');
  const body = (connection: number, sequence: number) => mcpBody(thread(connection, sequence), `call_${sequence}`, sequence);
  return { port: Number(new URL(origin).port), path: '/mcp', body, headers: MCP_HEADERS, inspect: echoedOverMcp };
}

/** The reference server: the same dispatch of echo, a new thread per request, the same checks on its answer. */
function referenceLoad(origin: string): TargetLoad {
  return { ...dispatchLoad(origin, 'reference'), headers: { authorization: `Bearer ${REFERENCE_KEY}` } };
}

function bareLoad(origin: string): TargetLoad {
  const body = (connection: number, sequence: number) => dispatchBody(`t-${connection}-${sequence}`, `call_${sequence}`);
  return { port: Number(new URL(origin).port), path: '/bare', body, headers: {}, inspect: (text) => text === '{"ok":true}' };
}

interface Target {
  server: ServerProcess;
  /** A fresh load (new thread ids) for each run. */
  load(): TargetLoad;
}

interface DeployedMeasured extends Measured {
  /** CPU µs per request of the serve process's children (its exec-server): echo never reaches it. */
  childCpuUsPerRequest: number;
  logBytesPerRequest: number;
  logLinesPerRequest: number;
}

/** CPU of the server process and of its children, around the measured window. */
async function measure(target: Target): Promise<DeployedMeasured> {
  const { server } = target;
  const children = childPids(server.pid);
  const readings = { cpu: [0, 0], childCpu: [0, 0], bytes: [0, 0], lines: [0, 0] };
  const onWindow = async (edge: 'start' | 'end') => {
    const i = edge === 'start' ? 0 : 1;
    readings.cpu[i] = processCpuUs(server.pid);
    readings.childCpu[i] = children.reduce((sum, pid) => sum + processCpuUs(pid), 0);
    readings.bytes[i] = server.stdoutBytes();
    readings.lines[i] = server.stdoutLines();
  };
  const clientBefore = performance.eventLoopUtilization();
  const result = await generateLoad({ ...target.load(), ...TIMING, onWindow });
  const per = (pair: number[]) => (pair[1] - pair[0]) / result.requests;
  return {
    rps: result.rps,
    p50: result.latencyP50Ms,
    p99: result.latencyP99Ms,
    non2xx: result.non2xx,
    rejected: result.rejected,
    serverElu: Number.NaN,
    clientElu: performance.eventLoopUtilization(clientBefore).utilization,
    serverCpuUsPerRequest: per(readings.cpu),
    childCpuUsPerRequest: per(readings.childCpu),
    logBytesPerRequest: per(readings.bytes),
    logLinesPerRequest: per(readings.lines),
  };
}

/** One request outside the load, to prove each target answers what we think before counting it. */
async function checkTarget(name: TargetName, load: TargetLoad): Promise<void> {
  const body = typeof load.body === 'string' ? load.body : load.body(CONNECTIONS, 0);
  const response = await fetch(`http://127.0.0.1:${load.port}${load.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...load.headers }, body });
  const text = await response.text();
  const expected = name === 'refused' ? response.status === 400 && text.includes('"invalid_request"') : response.status === 200 && load.inspect?.(text);
  if (!expected) throw new Error(`${name} answered ${response.status}: ${text}`);
}

async function runRounds(targets: Record<TargetName, Target>): Promise<Record<TargetName, DeployedMeasured>[]> {
  const rounds: Record<TargetName, DeployedMeasured>[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    const names = index % 2 === 0 ? ORDER : [...ORDER].reverse();
    const measured: Partial<Record<TargetName, DeployedMeasured>> = {};
    for (const name of names) {
      progress(`deployed-throughput: round ${index + 1}/${ROUNDS}, ${name}`);
      measured[name] = await measure(targets[name]);
    }
    rounds.push(measured as Record<TargetName, DeployedMeasured>);
  }
  return rounds;
}

function roundFigures(rounds: Record<TargetName, DeployedMeasured>[]): Figures {
  const figures: Figures = { connections: CONNECTIONS };
  for (const name of ORDER) {
    const runs = rounds.map((r) => r[name]);
    Object.assign(figures, targetFigures(name, runs), {
      [`${name}_bad_answers`]: runs.reduce((sum, r) => sum + r.rejected, 0),
      ...(name === 'bare' ? {} : {
        [`${name}_exec_server_cpu_us_per_req`]: round(median(runs.map((r) => r.childCpuUsPerRequest))),
        [`${name}_log_lines_per_req`]: round(median(runs.map((r) => r.logLinesPerRequest))),
        [`${name}_log_bytes_per_req`]: round(median(runs.map((r) => r.logBytesPerRequest))),
      }),
    });
  }
  const ratio = (a: TargetName, b: TargetName) => medianRatio(rounds, a, b);
  const runsOf = (a: TargetName, b: TargetName) => rounds.map((r) => round(r[a].rps / r[b].rps)).join(' / ');
  const cpuCostRatio = (a: TargetName, b: TargetName) => round(median(rounds.map((r) => r[b].serverCpuUsPerRequest / r[a].serverCpuUsPerRequest)));
  return {
    ...figures,
    deployed_to_reference_ratio: round(ratio('deployed', 'reference')),
    deployed_to_reference_ratio_runs: runsOf('deployed', 'reference'),
    mcp_to_deployed_ratio: round(ratio('mcp', 'deployed')),
    mcp_to_deployed_ratio_runs: runsOf('mcp', 'deployed'),
    // Not budgets (withdrawn, issue 26): how far a bare route is from any durable work.
    deployed_to_bare_ratio: round(ratio('deployed', 'bare')),
    memory_to_bare_ratio: round(ratio('memory', 'bare')),
    reference_to_bare_ratio: round(ratio('reference', 'bare')),
    // How far the memory store's ratio could go were the pipeline free.
    refused_to_bare_ratio: round(ratio('refused', 'bare')),
    // What the servers' own CPU cost predicts for the ratio, were nothing else competing for the cores.
    deployed_to_reference_cpu_cost_ratio: cpuCostRatio('deployed', 'reference'),
    mcp_to_deployed_cpu_cost_ratio: cpuCostRatio('mcp', 'deployed'),
    reference_verdict: verdict('median deployed/reference', ratio('deployed', 'reference'), '>=', BUDGET.reference, ''),
    mcp_verdict: verdict('median mcp/deployed', ratio('mcp', 'deployed'), '>=', BUDGET.mcp, ''),
  };
}

async function startTargets(dir: string, started: ServerProcess[]): Promise<Record<TargetName, Target>> {
  const keep = (server: ServerProcess) => (started.push(server), server);
  const bare = keep(await startServer(['bench/bare-server.ts'], {}, /listening on (http:\/\/\S+)/));
  const reference = keep(await startServer(['bench/reference-server.ts'], { REFERENCE_DATA_DIR: join(dir, 'reference'), REFERENCE_KEY }, /listening on (http:\/\/\S+)/));
  const deployed = keep(await startDeployed(dir, 'sqlite'));
  const memory = keep(await startDeployed(dir, 'memory'));
  return {
    bare: { server: bare, load: () => bareLoad(bare.origin) },
    reference: { server: reference, load: () => referenceLoad(reference.origin) },
    deployed: { server: deployed, load: () => dispatchLoad(deployed.origin, 'deployed') },
    memory: { server: memory, load: () => dispatchLoad(memory.origin, 'memory') },
    mcp: { server: deployed, load: () => mcpLoad(deployed.origin) },
    refused: { server: memory, load: () => refusedLoad(memory.origin) },
  };
}

export const deployedThroughput: BenchModule = {
  name: 'deployed-throughput',
  title: `npm start's gateway (toolgate serve: SQLite file, audit, JSON logs on a drained pipe, exec-server beside it) vs the reference server (the same durable work per call, written plainly: bench/reference-server.ts) and a bare Hono JSON route, each its own process; /v1/dispatch of echo, the same on the memory store, /mcp tools/call, and the memory serve refusing a dispatch before its pipeline (400: the gateway's floor); ${CONNECTIONS} keep-alive connections, a new agent thread per request, ${TIMING.durationMs / 1000} s per run, median of ${ROUNDS} rounds (req/s, server process CPU µs per request)`,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-deployed-'));
    const started: ServerProcess[] = [];
    try {
      const targets = await startTargets(dir, started);
      for (const name of ORDER) {
        await checkTarget(name, targets[name].load());
        progress(`deployed-throughput: warming up ${name}`);
        await warmUp(targets[name].load(), CONNECTIONS, FIRST_WARMUP_MS);
      }
      return roundFigures(await runRounds(targets));
    } finally {
      await Promise.all(started.map((server) => server.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
