import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkthroughBlock } from '../../scripts/readme-figures.ts';
import { fromLambdaResult, toHttpApiEvent } from '../e2e/runtimes/lambda-events.ts';
import { startLambdaEnvironment } from '../e2e/runtimes/lambda-environment.ts';
import { readServerlessConfig } from '../deploy/serverless-config.ts';
import { freePort, REPO_ROOT } from '../helpers/processes.ts';

// README walkthroughs run as written: the code block under `<!-- walkthrough:NAME -->`, in bash
// in the project, on a scratch data folder and a free port (the README's 127.0.0.1:8787 becomes
// it). Each `# ...` line right below a command is output the README promises: it must appear.

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
/** Bounds for every shell these tests start (processes, seconds): a walkthrough must not run away. */
const LIMITS = 'ulimit -u 4096;';
const SECONDS = 120;

/** bash's arguments to run `block` (as $1, untouched) with `set -e`, bounded in processes and time. */
const bounded = (block: string, seconds: number) => ['-c', `${LIMITS} exec timeout ${seconds} bash -e -c "$1"`, 'walkthrough', block];

/** The output lines promised by `# ` comments directly under a command (or under another such line). */
function promisedOutput(block: string): string[] {
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
const steady = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>').replace(/\d+ KiB/g, '<n> KiB').trimEnd();

/** A README environment: the project as cwd, a scratch data folder, no TOOLGATE_* of the developer's. */
function scratchEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('TOOLGATE_')) env[name] = value;
  return { ...env, PORT: String(port), TOOLGATE_EXEC_PORT: '0', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_WORKSPACE: join(dataDir, 'workspace') };
}

/** The gateway block, running in its own process group (npm start's node children stop with it). */
function startGateway(block: string, env: NodeJS.ProcessEnv): { output(): string; listening: Promise<void>; stop(): Promise<void> } {
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

function runBlock(block: string, env: NodeJS.ProcessEnv): { code: number | null; output: string } {
  const run = spawnSync('bash', bounded(block, SECONDS), { cwd: REPO_ROOT, env, encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the acme walkthrough (Deploy › A tenant\'s first manifest), as written, on the local gateway', () => {
  let dataDir: string;
  let port: number;
  let gateway: ReturnType<typeof startGateway>;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'toolgate-walkthrough-'));
    port = await freePort();
    gateway = startGateway(walkthroughBlock(README, 'acme-gateway'), scratchEnv(dataDir, port));
    await gateway.listening;
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every command succeeds and prints what the README shows', () => {
    const block = walkthroughBlock(README, 'acme');
    expect(block).toContain('127.0.0.1:8787');
    const run = runBlock(block.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`), scratchEnv(dataDir, port));
    expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });
    const printed = run.output.split('\n').map(steady);
    const promised = promisedOutput(block).map(steady);
    expect(promised.length).toBeGreaterThanOrEqual(11);
    for (const line of promised) expect(printed, `README promises: ${line}\nthe run printed:\n${run.output}`).toContain(line);
  }, 180_000);
});

describe('the Lambda walkthrough (Deploy › AWS Lambda): install what serverless.yml needs, build the bundle offline', () => {
  const block = walkthroughBlock(README, 'lambda');
  const [install, ...rest] = block.split('\n');

  it('installs the framework version serverless.yml asks for and every plugin it names', () => {
    const config = readServerlessConfig();
    expect(install).toMatch(/^npm install --no-save /);
    const packages = install.replace(/#.*/, '').trim().split(/\s+/).slice(3);
    expect(packages).toEqual([`serverless@${config.frameworkVersion}`, ...config.plugins]);
  });

  // The install itself reaches the npm registry and is left out; the build runs as written, offline.
  it('builds the bundle as written, and that bundle answers /healthz in a fresh Node', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-walkthrough-lambda-'));
    try {
      const run = runBlock(rest.join('\n'), scratchEnv(dataDir, 0));
      expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });
      const printed = run.output.split('\n').map(steady);
      for (const line of promisedOutput(rest.join('\n')).map(steady)) expect(printed).toContain(line);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const environment = await startLambdaEnvironment(join(REPO_ROOT, 'dist/lambda/lambda.mjs'), { TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1' });
    try {
      const response = fromLambdaResult(await environment.invoke(await toHttpApiEvent(new Request('https://gateway/healthz'))));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', store: 'memory' });
    } finally {
      await environment.stop();
    }
  }, 180_000);
});
