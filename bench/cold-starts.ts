/**
 * Cold start to the first successful dispatch, per runtime: the clock starts when the process
 * is spawned (or Miniflare constructed) and stops when the first echo dispatch has answered ok.
 * HTTP runtimes are polled with the dispatch itself every POLL_MS until they answer, so the
 * figure is at most POLL_MS late; Lambda environments say when INIT is over and are invoked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DENO_BIN, denoProcessEnv, denoRunArgs } from '../scripts/dev/deno-command.ts';
import { freePort } from '../scripts/dev/free-port.ts';
import { readServerlessConfig } from '../test/deploy/serverless-config.ts';
import { fromLambdaResult, toHttpApiEvent } from '../test/e2e/runtimes/lambda-events.ts';
import { startLambdaEnvironment } from '../test/e2e/runtimes/lambda-environment.ts';
import { REPO_ROOT } from '../test/helpers/processes.ts';
import { DEMO_GRANTS, DEMO_KEY, dispatchRequest, expectDispatched } from './runtime-requests.ts';
import { sampleCpu, startWorkerd, ticksToMs, type WorkerSource } from './workerd.ts';

const POLL_MS = 5;
const START_TIMEOUT_MS = 60_000;

/** One cold start: the total, and named parts of it (e.g. INIT) in ms. */
export interface ColdStartRun {
  totalMs: number;
  parts: Record<string, number>;
}

export interface ColdStartTarget {
  name: string;
  run(): Promise<ColdStartRun>;
}

interface RuntimeProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A runtime process with only the variables given (plus PATH and HOME): a developer's
 * TOOLGATE_STORE or AWS_* must not change what is measured.
 */
function spawnRuntime(command: string, args: string[], env: Record<string, string>): RuntimeProcess {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // A benchmark that dies halfway must not leave a runtime behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  return { child, output: () => output, stop };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Sends the first dispatch until the server accepts the connection; its answer must be ok. */
async function firstDispatch(origin: string, runtime: RuntimeProcess): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(dispatchRequest(origin, 1));
    } catch (error) {
      if (runtime.child.exitCode !== null) throw new Error(`the runtime exited (${runtime.child.exitCode}) before answering; output:\n${runtime.output()}`, { cause: error });
      if (performance.now() > deadline) throw new Error(`no answer within ${START_TIMEOUT_MS} ms; output:\n${runtime.output()}`, { cause: error });
      await sleep(POLL_MS);
      continue;
    }
    return expectDispatched(response, 1);
  }
}

/** Spawns, times the first dispatch, stops; `cleanup` runs whatever happens. */
async function timeHttpRuntime(start: () => RuntimeProcess, origin: string, cleanup: () => void): Promise<ColdStartRun> {
  const started = performance.now();
  const runtime = start();
  try {
    await firstDispatch(origin, runtime);
    return { totalMs: performance.now() - started, parts: {} };
  } finally {
    await runtime.stop();
    cleanup();
  }
}

/** `toolgate serve` on SQLite in a fresh data dir, with its exec-server on a free port and a fresh workspace. */
export const nodeColdStart: ColdStartTarget = {
  name: 'node',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-node-'));
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: join(dir, 'data'), TOOLGATE_WORKSPACE: join(dir, 'workspace'), TOOLGATE_EXEC_PORT: '0', TOOLGATE_DEMO_KEY: DEMO_KEY };
    const start = () => spawnRuntime(process.execPath, ['bin/toolgate.js', 'serve'], env);
    return timeHttpRuntime(start, `http://127.0.0.1:${port}`, () => rmSync(dir, { recursive: true, force: true }));
  },
};

/**
 * functions/deno.ts on the memory store. Deno keeps transpiled modules in DENO_DIR: `denoDir`
 * is shared by the runs, so only the first run after prime() pays for transpiling.
 */
export function denoColdStart(denoDir: string): ColdStartTarget & { prime(): Promise<ColdStartRun> } {
  const once = async () => {
    const port = await freePort();
    const env = { ...denoProcessEnv(denoDir), PORT: String(port), HOST: '127.0.0.1', TOOLGATE_STORE: 'memory', TOOLGATE_DEMO_KEY: DEMO_KEY, ...DEMO_GRANTS };
    return timeHttpRuntime(() => spawnRuntime(DENO_BIN, denoRunArgs(), env), `http://127.0.0.1:${port}`, () => {});
  };
  return { name: 'deno', run: once, prime: once };
}

/**
 * A new Miniflare on a Worker. Parts: until Miniflare is ready (workerd started, the script
 * loaded), the first request after that, and the CPU workerd spent on it, all threads and the
 * isolate's (main) thread alone: the Worker builds its gateway on its first request, so on
 * Cloudflare that counts against the first request's CPU limit; the second request's CPU shows
 * what is left of that once the isolate is warm. One request is far below the 10 ms tick of
 * utime/stime, so these come from schedstat (ns). Also Miniflare's CPU in this process until
 * ready, and the workerd process's CPU from its start to the first answer.
 */
export function workerdColdStart(name: string, source: WorkerSource, bindings: Record<string, string>): ColdStartTarget {
  return {
    name,
    async run() {
      const started = performance.now();
      const nodeCpu = process.cpuUsage();
      const workerd = await startWorkerd(source, bindings);
      try {
        const readyMs = performance.now() - started;
        // Miniflare's own work in this process (it reads and parses the script's modules, for one).
        const used = process.cpuUsage(nodeCpu);
        const miniflareCpuMs = (used.user + used.system) / 1000;
        const before = sampleCpu(workerd.pid);
        await expectDispatched(await fetch(dispatchRequest(workerd.origin, 1)), 1);
        const totalMs = performance.now() - started;
        const after = sampleCpu(workerd.pid);
        await expectDispatched(await fetch(dispatchRequest(workerd.origin, 2)), 2);
        const second = sampleCpu(workerd.pid);
        const parts = {
          ready_ms: readyMs,
          // workerd's CPU from its start to ready (every thread): the isolate's start-up, module scope included.
          ready_cpu_ms: before.onCpuNs / 1e6,
          miniflare_node_cpu_ms: miniflareCpuMs,
          first_request_ms: totalMs - readyMs,
          first_request_cpu_ms: (after.onCpuNs - before.onCpuNs) / 1e6,
          first_request_main_thread_cpu_ms: (after.mainThreadNs - before.mainThreadNs) / 1e6,
          second_request_cpu_ms: (second.onCpuNs - after.onCpuNs) / 1e6,
          process_cpu_ms: ticksToMs(after.ticks),
        };
        return { totalMs, parts };
      } finally {
        await workerd.stop();
      }
    },
  };
}

export const WORKERD_GATEWAY_BINDINGS = { TOOLGATE_STORE: 'memory', TOOLGATE_DEMO_KEY: DEMO_KEY, ...DEMO_GRANTS };

/**
 * A Worker with no gateway that answers a dispatch as the echo tool would: the floor of a workerd
 * cold start here (Miniflare, workerd, its entry worker), to set the gateway's part against.
 */
export const TRIVIAL_WORKER: WorkerSource = {
  script: `export default {
    async fetch(request) {
      const { calls } = await request.json();
      return Response.json({ results: [{ call_id: calls[0].call_id, status: 'ok', content: calls[0].arguments.text }] });
    },
  };`,
};

/** serverless.yml's NODE_OPTIONS (--enable-source-maps): it changes what loading the bundle costs. */
function lambdaNodeOptions(): Record<string, string> {
  const value = readServerlessConfig().provider.environment.NODE_OPTIONS;
  return typeof value === 'string' ? { NODE_OPTIONS: value } : {};
}

/** A fresh Lambda environment (lambda-child.ts) on `module`, memory store, invoked with an API Gateway v2 event. */
export function lambdaColdStart(name: string, module: string): ColdStartTarget {
  const env = { TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1', TOOLGATE_DEMO_KEY: DEMO_KEY, ...DEMO_GRANTS, ...lambdaNodeOptions() };
  return {
    name,
    async run() {
      const event = await toHttpApiEvent(dispatchRequest('https://gateway.example', 1));
      const started = performance.now();
      const environment = await startLambdaEnvironment(module, env);
      try {
        const initDoneMs = performance.now() - started;
        await expectDispatched(fromLambdaResult(await environment.invoke(event)), 1);
        const totalMs = performance.now() - started;
        return { totalMs, parts: { init_ms: environment.initMs, process_start_ms: initDoneMs - environment.initMs, first_invoke_ms: totalMs - initDoneMs } };
      } finally {
        await environment.stop();
      }
    },
  };
}
