import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../helpers/processes.ts';

const DEMO_KEY = 'tg_dev_scripts_demo_key_0123456789abcdef';

/** `npm run dev:*` as a developer runs it: in its own process group, so SIGINT to the group is Ctrl-C. */
function startDevScript(script: string, env: Record<string, string>) {
  const child = spawn('npm', ['run', script], { cwd: REPO_ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return { child, exited, output: () => output };
}

async function waitForOutput(output: () => string, child: ChildProcess, pattern: RegExp, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(output())) {
    if (child.exitCode !== null) throw new Error(`${pattern} never came; the script exited (${child.exitCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every process below `root`, with its command name (from ps). */
function descendants(root: number): Array<{ pid: number; name: string }> {
  const rows = spawnSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' }).stdout.trim().split('\n').map((line) => line.trim().split(/\s+/));
  const found: Array<{ pid: number; name: string }> = [];
  const parents = [root];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (const [pid, ppid, name] of rows) {
      if (Number(ppid) === parent) {
        found.push({ pid: Number(pid), name });
        parents.push(Number(pid));
      }
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** After a failed test: whatever is left of the group goes, and the scratch folder is still removed. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // the group is already gone
  }
}

async function waitUntilGone(pids: number[], timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(isAlive);
}

describe('npm run dev:worker and dev:deno', () => {
  for (const [script, runtime] of [['dev:worker', 'workerd'], ['dev:deno', 'deno']] as const) {
    it(`${script} serves the demo tenant on PORT with TOOLGATE_DEMO_KEY, and Ctrl-C leaves nothing running`, async () => {
      const scratch = mkdtempSync(join(tmpdir(), 'toolgate-dev-scripts-'));
      const workspace = join(scratch, 'workspace');
      const port = await freePort();
      const dev = startDevScript(script, { PORT: String(port), TOOLGATE_DEMO_KEY: DEMO_KEY, TOOLGATE_WORKSPACE: workspace, TOOLGATE_DATA_DIR: join(scratch, 'data'), TOOLGATE_EXEC_PORT: '0', DENO_DIR: join(scratch, 'deno') });
      const pgid = dev.child.pid as number;
      try {
        await waitForOutput(dev.output, dev.child, /Ctrl-C stops everything/);
        expect(dev.output()).toContain(`listening on http://127.0.0.1:${port}`);
        expect(dev.output()).toContain(`demo API key: ${DEMO_KEY}  (from TOOLGATE_DEMO_KEY)`);
        const children = descendants(pgid);
        expect(children.map((c) => c.name)).toEqual(expect.arrayContaining(['redis-server', runtime]));

        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(await health.json()).toMatchObject({ status: 'ok', store: 'upstash' });
        const response = await fetch(`http://127.0.0.1:${port}/v1/dispatch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ thread_id: 'dev-scripts', calls: [{ call_id: 'e', name: 'echo', arguments: { text: `hello from ${script}` } }, { call_id: 'r', name: 'read_file', arguments: { file_path: 'greet.sh' } }] }),
        });
        const body = (await response.json()) as { results: Array<{ status: string; content: string }> };
        expect(body.results[0]).toMatchObject({ status: 'ok', content: `hello from ${script}` });
        expect(body.results[1]).toMatchObject({ status: 'ok', content: expect.stringContaining('echo "Hello, $name!"') });
        expect(existsSync(join(workspace, 'greet.sh'))).toBe(true);

        process.kill(-pgid, 'SIGINT');
        // npm itself got the SIGINT too and, once the script has exited, ends the way a Ctrl-C'd program does.
        expect([{ code: 0, signal: null }, { code: null, signal: 'SIGINT' }, { code: 130, signal: null }]).toContainEqual(await dev.exited);
        expect(await waitUntilGone(children.map((c) => c.pid))).toEqual([]);
        expect(dev.output()).toContain('toolgate dev: stopped');
        await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      } finally {
        if (dev.child.exitCode === null && dev.child.signalCode === null) {
          killGroup(pgid);
          await dev.exited;
        }
        rmSync(scratch, { recursive: true, force: true });
      }
    }, 180_000);
  }
});
