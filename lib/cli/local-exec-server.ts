import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { secretName } from '../crypto/secrets.ts';
import { toHex } from '../crypto/sha256.ts';
import type { SandboxReport } from '../exec/sandbox/command-sandbox.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { EXEC_SECRET_VARIABLE } from './exec-server.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const SAMPLE_WORKSPACE = resolve(import.meta.dirname, '../../examples/demo/workspace');
const TOOLGATE_BIN = resolve(import.meta.dirname, '../../bin/toolgate.js');
/** How long the exec-server may take to start (a Node start, the sandbox probe). */
const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;
/** What the exec-server process inherits from the gateway's environment: nothing secret. */
const PASSED_TO_EXEC_SERVER = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LANGUAGE', 'TERM', 'TZ'];

export interface LocalExecServer {
  /** Variables the gateway needs to reach it: the secret, under the name the manifest gives it. */
  env: Record<string, string>;
  root: string;
  url: string;
  /** Its /healthz: how it runs commands. */
  health: SandboxReport;
  close(): Promise<void>;
}

export interface LocalExecServerOptions {
  /** Discard the exec-server's own output (its log lines); default: passed to this process's stdout and stderr. */
  quiet?: boolean;
}

/**
 * When a manifest's execution environment is on this machine, `toolgate serve` (and the dev
 * scripts) start `toolgate exec-server` beside the gateway, as a process of its own: commands
 * never run inside the gateway's event loop, and the exec-server holds none of the gateway's
 * variables (only its own secret). It serves the workspace (TOOLGATE_WORKSPACE, default
 * ./workspace, created from the sample on first start) to the manifest's tenant; with
 * TOOLGATE_EXEC_UNSANDBOXED=1 it runs commands without a sandbox, with
 * TOOLGATE_EXEC_ALLOW_HARD_LINKS=1 its file tools use files with several hard links. It stops
 * with the gateway, and also when the gateway dies without stopping it (it watches its standard input, a pipe from here).
 */
export async function startLocalExecServer(manifest: Manifest, env: NodeJS.ProcessEnv, options: LocalExecServerOptions = {}): Promise<LocalExecServer | undefined> {
  const ref = manifest.execution_environment;
  if (!ref || !LOOPBACK.has(new URL(ref.url).hostname) || env.TOOLGATE_EXEC_EXTERNAL === '1') return undefined;
  const root = resolve(env.TOOLGATE_WORKSPACE || 'workspace');
  if (!existsSync(root)) cpSync(SAMPLE_WORKSPACE, root, { recursive: true });
  // The gateway reads the secret under the name the manifest gives it (granted to its tenant).
  const variable = secretName(ref.secret) ?? EXEC_SECRET_VARIABLE;
  const secret = env[variable] || toHex(crypto.getRandomValues(new Uint8Array(32)));
  const port = env.TOOLGATE_EXEC_PORT !== undefined ? Number(env.TOOLGATE_EXEC_PORT) : Number(new URL(ref.url).port || 80);
  const args = [TOOLGATE_BIN, 'exec-server', '--root', root, '--port', String(port), '--host', '127.0.0.1', '--tenant', manifest.tenant, '--stop-on-stdin-close'];
  if (env.TOOLGATE_EXEC_UNSANDBOXED === '1') args.push('--unsandboxed');
  if (env.TOOLGATE_EXEC_ALLOW_HARD_LINKS === '1') args.push('--allow-hard-links');
  const child = spawn(process.execPath, args, { env: execServerEnv(env, secret), stdio: ['pipe', 'pipe', 'pipe'] });
  const stop = () => stopProcess(child);
  try {
    const url = await listeningUrl(child, port, options.quiet === true);
    const health = await healthOf(url);
    return { env: { [variable]: secret }, root, url, health, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function execServerEnv(env: NodeJS.ProcessEnv, secret: string): Record<string, string> {
  const passed: Record<string, string> = { [EXEC_SECRET_VARIABLE]: secret };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (PASSED_TO_EXEC_SERVER.includes(name) || name.startsWith('LC_'))) passed[name] = value;
  }
  return passed;
}

/** Its URL once it says it listens; its output is passed on (or dropped) from then on. */
function listeningUrl(child: ChildProcessWithoutNullStreams, port: number, quiet: boolean): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let stdout = '';
    let stderr = '';
    let ready = false;
    const timer = setTimeout(() => fail(new Error(`the exec-server did not start within ${READY_TIMEOUT_MS / 1000} s:\n${stderr}`)), READY_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (ready) return void (quiet || process.stdout.write(chunk));
      stdout += chunk.toString();
      const url = stdout.match(/listening on (http:\/\/\S+)/)?.[1];
      if (!url) return;
      ready = true;
      clearTimeout(timer);
      if (!quiet) process.stdout.write(stdout);
      resolveUrl(url);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (ready) return void (quiet || process.stderr.write(chunk));
      stderr += chunk.toString();
    });
    child.once('error', (error) => fail(new Error(`could not start the exec-server: ${error.message}`)));
    child.once('exit', (code) => {
      if (ready) return;
      if (stderr.includes('EADDRINUSE')) {
        fail(new Error(`port ${port} (the demo exec-server) is in use: stop that process, or set TOOLGATE_EXEC_PORT to a free port (0 picks one)`));
      } else {
        fail(new Error(`the exec-server exited (code ${code}) before it was ready:\n${stderr.trim()}`));
      }
    });
  });
}

async function healthOf(url: string): Promise<SandboxReport> {
  const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the exec-server at ${url} answered /healthz with HTTP ${response.status}`);
  return (await response.json()) as SandboxReport;
}

/** SIGTERM, then SIGKILL if it has not exited within the grace period. */
async function stopProcess(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(killer);
}
