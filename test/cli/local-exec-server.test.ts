import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalExecServer } from '../../lib/cli/local-exec-server.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { isRunning, waitUntil } from '../exec/helpers.ts';
import { validManifest } from '../helpers/manifests.ts';
import { freePort, spawnNode } from '../helpers/processes.ts';

/** Child processes of `parent` whose command line mentions `exec-server`. */
function execServerChildren(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('exec-server')) found.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

const manifest = validManifest({
  tenant: 'demo',
  profile: 'openai',
  execution_environment: { url: 'http://127.0.0.1:8788', secret: 'env:DEMO_EXEC_SECRET' },
  tools: [],
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-local-exec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start runs the exec-server as a process of its own', () => {
  it('starts it beside the gateway, with none of the gateway\'s variables, and stops it', async () => {
    const env = { TOOLGATE_WORKSPACE: join(dir, 'workspace'), TOOLGATE_EXEC_PORT: '0', PATH: process.env.PATH, SLACK_SIGNING_SECRET: 'gateway-only-secret' };
    const exec = await startLocalExecServer(manifest, env, { quiet: true });
    if (!exec) throw new Error('expected a local exec-server');
    try {
      const [pid] = execServerChildren(process.pid);
      expect(pid).toBeGreaterThan(0);
      const childEnv = readFileSync(`/proc/${pid}/environ`, 'utf8');
      expect(childEnv).toContain('TOOLGATE_EXEC_SECRET=');
      expect(childEnv).not.toContain('gateway-only-secret');
      // The gateway gets the secret under the name its manifest gives it.
      expect(Object.keys(exec.env)).toEqual(['DEMO_EXEC_SECRET']);
      expect(exec.health).toMatchObject({ sandbox: 'bubblewrap', commands: 'sandboxed' });
      const remote = new RemoteExecutionEnvironment({ url: exec.url, secret: exec.env.DEMO_EXEC_SECRET, tenant: 'demo' });
      // The workspace was created from the demo sample, and commands run in it.
      expect(await remote.execCommand('ls')).toMatchObject({ exit_code: 0, stdout: 'greet.sh\n' });
      await exec.close();
      expect(await waitUntil(() => !isRunning(pid), 5_000)).toBe(true);
    } finally {
      await exec.close();
    }
  });

  it('reports a port clash with the variable to change', async () => {
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const env = { TOOLGATE_WORKSPACE: join(dir, 'workspace'), TOOLGATE_EXEC_PORT: String(port), PATH: process.env.PATH };
      await expect(startLocalExecServer(manifest, env, { quiet: true })).rejects.toThrow(`port ${port} (the demo exec-server) is in use: stop that process, or set TOOLGATE_EXEC_PORT`);
      expect(execServerChildren(process.pid)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('never outlives a gateway that is killed outright', async () => {
    const gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: { PORT: String(await freePort()), TOOLGATE_DATA_DIR: dir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dir, 'workspace') },
    });
    try {
      // The lines after "listening on" may come in a later chunk of output: wait for the one read.
      await gateway.waitFor(/coding tools: exec-server http:\/\/127\.0\.0\.1:\d+ over .* \(commands sandboxed with bubblewrap\)/);
      const [execPid] = execServerChildren(gateway.child.pid!);
      expect(execPid).toBeGreaterThan(0);
      gateway.child.kill('SIGKILL');
      expect(await waitUntil(() => !isRunning(execPid), 10_000)).toBe(true);
    } finally {
      await gateway.stop();
    }
  });
});
