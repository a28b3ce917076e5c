import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export { freePort } from '../../scripts/dev/free-port.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches, rejects when the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

/** Starts a process with the repo's Node (the one running the tests) and collects its output. */
export function spawnNode(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Spawned {
  return spawnProcess(process.execPath, args, options);
}

/** Starts any program (in the repo unless `cwd` says otherwise) and collects its output. */
export function spawnProcess(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Spawned {
  const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolveMatch, reject) => {
        const deadline = setTimeout(() => { clearInterval(poll); reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`)); }, timeoutMs);
        const poll = setInterval(() => {
          const match = output.match(pattern);
          if (match) { clearInterval(poll); clearTimeout(deadline); resolveMatch(match); }
          else if (child.exitCode !== null) { clearInterval(poll); clearTimeout(deadline); reject(new Error(`process exited (${child.exitCode}) before ${pattern}; output:\n${output}`)); }
        }, 25);
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

/** Runs a command to completion. */
export function runNode(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}
