import { spawn } from 'node:child_process';
import { existsSync, linkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { execServerCommand } from '../../lib/cli/exec-server.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { ToolError } from '../../lib/registry/errors.ts';
import { makeSandbox, utf8, type Sandbox } from './helpers.ts';

const SECRET = 'cli-secret-0123456789abcdef0123456789abcdef';
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox.cleanup();
});

function captureConsole(): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.join(' ')));
  return { out, err };
}

// Generous: on a loaded machine (the suite's forks side by side) a start can take seconds.
async function waitFor<T>(read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('toolgate exec-server (execServerCommand)', () => {
  it('refuses to start without TOOLGATE_EXEC_SECRET and says how to set it', async () => {
    const { err } = captureConsole();
    expect(await execServerCommand(['--root', sandbox.root, '--tenant', 'demo'], { env: {} })).toBe(2);
    expect(err.join('\n')).toContain('TOOLGATE_EXEC_SECRET is not set');
    expect(err.join('\n')).toContain('export TOOLGATE_EXEC_SECRET=');
  });

  it('requires --root, a valid port and known options', async () => {
    const { err } = captureConsole();
    const env = { TOOLGATE_EXEC_SECRET: SECRET, TOOLGATE_EXEC_TENANTS: 'demo' };
    expect(await execServerCommand([], { env })).toBe(2);
    expect(err.join('\n')).toContain('--root DIR is required');
    expect(await execServerCommand(['--root', sandbox.root, '--port', 'http'], { env })).toBe(2);
    expect(await execServerCommand(['--root', sandbox.root, '--verbose'], { env })).toBe(2);
    expect(await execServerCommand(['--root', sandbox.root, '--max-body-bytes', '10'], { env })).toBe(2);
    expect(err.join('\n')).toContain('--max-body-bytes must be');
  });

  it('refuses to start without a tenant to serve and says how to name one', async () => {
    const { err } = captureConsole();
    expect(await execServerCommand(['--root', sandbox.root, '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET } })).toBe(2);
    expect(err.join('\n')).toContain('--tenant NAME (repeatable) or TOOLGATE_EXEC_TENANTS=a,b');
    expect(await execServerCommand(['--root', sandbox.root, '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET, TOOLGATE_EXEC_TENANTS: ' , ' } })).toBe(2);
    expect(await execServerCommand(['--root', sandbox.root, '--tenant', 'Not A Tenant', '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET } })).toBe(1);
    expect(err.join('\n')).toContain('"Not A Tenant" is not a tenant id');
  });

  it('serves every tenant named, by flag or by TOOLGATE_EXEC_TENANTS, and refuses others', async () => {
    const { out } = captureConsole();
    const stop = new AbortController();
    const running = execServerCommand(['--root', sandbox.root, '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET, TOOLGATE_EXEC_TENANTS: 'demo, acme' }, stop: stop.signal });
    const url = await waitFor(() => out.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+) \(root .*; tenants demo, acme\)/)?.[1]);
    try {
      for (const tenant of ['demo', 'acme']) expect(await new RemoteExecutionEnvironment({ url, secret: SECRET, tenant }).platform()).toBe(process.platform);
      const refused = new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'other' }).writeFile('other.txt', utf8('x'));
      await expect(refused).rejects.toThrow(/does not serve tenant "other"/);
      expect(existsSync(join(sandbox.root, 'other.txt'))).toBe(false);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
  });

  it('fails with a message when the root does not exist', async () => {
    const { err } = captureConsole();
    expect(await execServerCommand(['--root', `${sandbox.base}/missing`, '--tenant', 'demo', '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET } })).toBe(1);
    expect(err.join('\n')).toContain('does not exist');
  });

  it('serves until stopped, prints its URL, and logs one JSON line per call', async () => {
    const { out } = captureConsole();
    const stop = new AbortController();
    const running = execServerCommand(['--root', sandbox.root, '--tenant', 'demo', '--port', '0'], { env: { TOOLGATE_EXEC_SECRET: SECRET }, stop: stop.signal });
    const url = await waitFor(() => out.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1]);
    const remote = new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'demo' });
    await remote.writeFile('hello.txt', utf8('hi'));
    expect(new TextDecoder().decode(await remote.readFile('hello.txt'))).toBe('hi');
    const lines = out.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { event: string; method?: string });
    expect(lines.map((line) => `${line.event}:${line.method}`)).toEqual(['exec.rpc.completed:writeFile', 'exec.rpc.completed:readFile']);
    stop.abort();
    expect(await running).toBe(0);
    await expect(remote.readFile('hello.txt')).rejects.toBeInstanceOf(ToolError);
  });

  it('refuses files with several hard links unless started with --allow-hard-links, and says so at start', async () => {
    writeFileSync(join(sandbox.outside, 'shared.txt'), 'shared');
    linkSync(join(sandbox.outside, 'shared.txt'), join(sandbox.root, 'linked.txt'));
    for (const allow of [false, true]) {
      const { out } = captureConsole();
      const stop = new AbortController();
      const flags = allow ? ['--allow-hard-links'] : [];
      const running = execServerCommand(['--root', sandbox.root, '--tenant', 'demo', '--port', '0', ...flags], { env: { TOOLGATE_EXEC_SECRET: SECRET }, stop: stop.signal });
      const url = await waitFor(() => out.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1]);
      try {
        const read = new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'demo' }).readFile('linked.txt');
        if (allow) expect(new TextDecoder().decode(await read)).toBe('shared');
        else await expect(read).rejects.toThrow(/has 2 hard links/);
        expect(out.some((line) => line.includes('hard links ALLOWED'))).toBe(allow);
      } finally {
        stop.abort();
      }
      expect(await running).toBe(0);
      vi.restoreAllMocks();
    }
  });

  it('runs as its own process and exits 0 on SIGTERM', async () => {
    const script = `import { execServerCommand } from './lib/cli/exec-server.ts'; process.exitCode = await execServerCommand(process.argv.slice(1));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, '--', '--root', sandbox.root, '--port', '0'], {
      cwd: repoRoot,
      env: { ...process.env, TOOLGATE_EXEC_SECRET: SECRET, TOOLGATE_EXEC_TENANTS: 'demo' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));
    try {
      const url = await waitFor(() => {
        if (exitCode !== undefined) throw new Error(`it exited with ${exitCode}`);
        return stdout.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
      }, 15_000);
      expect(await new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'demo' }).platform()).toBe(process.platform);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`exec-server did not start: ${(error as Error).message}\n${stderr}`);
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
