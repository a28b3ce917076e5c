import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { freePort } from './free-port.ts';
import { startDevStandIns, type DevStandIns } from './stand-ins.ts';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 120_000;
/** How long a runtime gets to shut down after Ctrl-C before it is killed. */
const STOP_GRACE_MS = 10_000;

export interface DevCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Removes what the command needed on disk (wrangler's variables file). */
  cleanup?: () => void;
}

export interface DevRuntime {
  /** Says which runtime serves, e.g. "Cloudflare Workers (wrangler dev, workerd)". */
  label: string;
  command(standIns: DevStandIns, port: number): DevCommand;
}

/**
 * `npm run dev:*`: starts the stand-ins, runs the runtime in the foreground on 127.0.0.1:PORT
 * (default 8787, as `npm start`), prints where it serves and the demo key once /healthz answers,
 * and on Ctrl-C (or SIGTERM) stops the runtime, then the stand-ins, before exiting.
 */
export async function runDev(runtime: DevRuntime): Promise<never> {
  let standIns: DevStandIns | undefined;
  try {
    const port = await devPort(process.env.PORT);
    standIns = await startDevStandIns(process.env);
    const command = runtime.command(standIns, port);
    const code = await supervise(command, runtime.label, `http://${HOST}:${port}`, standIns.summary);
    command.cleanup?.();
    await standIns.stop();
    console.log('toolgate dev: stopped the runtime, the exec-server, the Upstash bridge and redis-server');
    process.exit(code);
  } catch (error) {
    console.error(`toolgate dev: ${error instanceof Error ? error.message : String(error)}`);
    await standIns?.stop();
    process.exit(1);
  }
}

/** PORT as `npm start` reads it; 0 picks a free one. A port in use is refused before anything starts. */
async function devPort(value: string | undefined): Promise<number> {
  const port = value === undefined || value === '' ? 8787 : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT="${value}" is not a port number: set PORT to a free port such as 8787`);
  if (port === 0) return freePort();
  if (!(await isFree(port))) throw new Error(`port ${port} is in use (another toolgate, or npm start?): stop that process, or set PORT to a free port`);
  return port;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, HOST, () => probe.close(() => done(true)));
  });
}

/** Runs the command in the foreground; resolves with the exit code to report (0 after Ctrl-C). */
async function supervise(command: DevCommand, label: string, url: string, summary: string[]): Promise<number> {
  const child = spawn(command.file, command.args, { env: command.env, stdio: 'inherit' });
  const exited = new Promise<number>((done) => {
    child.once('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
    child.once('error', (error) => {
      console.error(`toolgate dev: could not start ${command.file}: ${error.message}`);
      done(1);
    });
  });
  let stopping = false;
  const stop = () => {
    stopping = true;
    stopChild(child, exited);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  void announceWhenServing(url, label, summary, exited);
  const code = await exited;
  return stopping ? 0 : code;
}

/**
 * Ctrl-C in a terminal already sent SIGINT to the runtime (same process group); a SIGTERM to this
 * launcher alone did not, so pass it on. A runtime that hangs is killed after a grace period.
 */
function stopChild(child: ChildProcess, exited: Promise<number>): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  void exited.then(() => clearTimeout(killer));
}

/** Polls /healthz until the runtime answers, then says where it serves and with which key. */
async function announceWhenServing(url: string, label: string, summary: string[], exited: Promise<number>): Promise<void> {
  let done = false;
  void exited.then(() => { done = true; });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!done && Date.now() < deadline) {
    const health = await fetch(`${url}/healthz`).then((r) => r.text().then((body) => ({ ok: r.ok, body })), () => undefined);
    if (health) {
      console.log([`\ntoolgate dev: ${label} listening on ${url}`, ...summary, ...(health.ok ? [] : [`warning: /healthz answered ${health.body}`]), 'Ctrl-C stops everything.\n'].join('\n'));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (!done) console.error(`toolgate dev: ${url}/healthz did not answer within ${READY_TIMEOUT_MS / 1000} s; still waiting for the runtime`);
}
