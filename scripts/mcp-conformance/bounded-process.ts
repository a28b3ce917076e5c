import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, spawnProcess, type Spawned } from '../../test/helpers/processes.ts';

/**
 * Node processes the conformance run starts, each under `timeout -s KILL`: whatever happens to
 * the run (a hung suite, a harness killed mid-way), none outlives its time.
 */
export type BoundedProcess = Spawned;

/**
 * Node 22 or later: the suite needs it (it imports `fs.globSync`), and so does `toolgate serve`
 * (node:sqlite). The project installs one (devDependency `node`) for a system Node 20.
 */
export function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const installed = join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(installed)) throw new Error('Node 22 is needed (the conformance suite and toolgate serve use it): run `npm ci` to install the project\'s Node 22');
  return installed;
}

export function boundedNode(args: string[], options: { seconds: number; env?: NodeJS.ProcessEnv; cwd?: string }): BoundedProcess {
  return spawnProcess('timeout', ['-s', 'KILL', String(options.seconds), node22(), ...args], { env: options.env, cwd: options.cwd });
}

/** Runs to completion (or until killed at `seconds`): exit code 137 is the timeout. */
export async function runBoundedNode(args: string[], options: { seconds: number; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const started = boundedNode(args, options);
  let stdout = '';
  let stderr = '';
  started.child.stdout?.on('data', (d: Buffer) => { stdout += d.toString(); });
  started.child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const code = await new Promise<number | null>((done) => started.child.once('close', (exit) => done(exit)));
  return { code, stdout, stderr };
}
