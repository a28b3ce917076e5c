import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/processes.ts';

// Running the docs' command blocks as written: in bash, in the project, on a scratch data folder
// and a free port, bounded in processes and time (a block must not run away).

/** The `<!-- walkthrough:NAME -->` blocks readme-walkthroughs.test.ts runs (doc-commands.test.ts holds the docs to them). */
export const WALKTHROUGHS = ['acme-gateway', 'acme', 'lambda'];

/** Bounds for every shell these tests start (processes, seconds). */
const LIMITS = 'ulimit -u 4096;';
export const SECONDS = 120;

/** bash's arguments to run `block` (as $1, untouched) with `set -e`, bounded in processes and time. */
export const bounded = (block: string, seconds: number) => ['-c', `${LIMITS} exec timeout ${seconds} bash -e -c "$1"`, 'walkthrough', block];

/** The output lines promised by `# ` comments directly under a command (or under another such line). */
export function promisedOutput(block: string): string[] {
  const promised: string[] = [];
  let previous: 'command' | 'promised' | 'other' = 'other';
  for (const line of block.split('\n')) {
    if (line.startsWith('# ') && previous !== 'other') {
      promised.push(line.slice(2));
      previous = 'promised';
    } else previous = line.trim() !== '' && !line.startsWith('#') ? 'command' : 'other';
  }
  return promised;
}

/** Times and sizes differ from run to run and build to build; everything else must be as printed. */
export const steady = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>').replace(/\d+ KiB/g, '<n> KiB').trimEnd();

/** Ids and hashes (8 or more hex digits) differ from run to run too. */
const unhashed = (text: string) => steady(text).replace(/[0-9a-f]{8,}/g, '<hex>');

/**
 * Whether `output` printed what a promised line shows. A line shown abridged (`→ ` before it, or
 * `...` inside it) is pieces the output holds in that order, `...` standing for anything; any other
 * line is one the output printed exactly (times and sizes aside; ids and hashes too, when abridged).
 */
export function printed(output: string, promise: string): boolean {
  const abridged = promise.startsWith('→ ') || promise.includes('...');
  if (!abridged) return output.split('\n').map(steady).includes(steady(promise));
  const seen = unhashed(output);
  let at = 0;
  for (const piece of unhashed(promise.replace(/^→ /, '')).split('...').filter((part) => part !== '')) {
    const found = seen.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/** A docs environment: the project as cwd, a scratch data folder, no TOOLGATE_* of the developer's. */
export function scratchEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('TOOLGATE_')) env[name] = value;
  return { ...env, PORT: String(port), TOOLGATE_EXEC_PORT: '0', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_WORKSPACE: join(dataDir, 'workspace') };
}

/** A gateway block, running in its own process group (npm start's node children stop with it). */
export function startGateway(block: string, env: NodeJS.ProcessEnv): { output(): string; listening: Promise<void>; stop(): Promise<void> } {
  const child = spawn('bash', bounded(block, SECONDS * 3), { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const listening = new Promise<void>((ready, failed) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/toolgate listening on/.test(output)) ready();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then(() => failed(new Error(`the gateway block exited:\n${output}`)));
  });
  return {
    output: () => output,
    listening,
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export function runBlock(block: string, env: NodeJS.ProcessEnv): { code: number | null; output: string } {
  const run = spawnSync('bash', bounded(block, SECONDS), { cwd: REPO_ROOT, env, encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}
