import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { REPO_ROOT, spawnNode, type Spawned } from '../helpers/processes.ts';
import { bubblewrapSandbox, countingListener, execError, makeSandbox, type CountingListener, type Sandbox } from './helpers.ts';

const SECRET = 'sandbox-server-secret-0123456789abcdef0123';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

/** `toolgate exec-server` as an operator runs it: its own process, its own environment. */
async function startCli(extraArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<{ process: Spawned; url: string; remote: RemoteExecutionEnvironment }> {
  const started = spawnNode(['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', ...extraArgs], {
    env: { TOOLGATE_EXEC_SECRET: SECRET, ...env },
  });
  const [, url] = await started.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await started.waitFor(/^commands: /m);
  return { process: started, url, remote: new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'demo' }) };
}

async function health(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/healthz`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('toolgate exec-server sandboxes every command', () => {
  it('says so on /healthz (unsigned, nothing secret) and in its start-up line', async () => {
    const server = await startCli([]);
    try {
      const report = await health(server.url);
      expect(report).toMatchObject({ status: 'ok', sandbox: 'bubblewrap', commands: 'sandboxed', network: 'never', setuid_files: expect.stringMatching(/^refused \(seccomp filter for (x86_64|aarch64)\)$/) });
      expect(report.limits).toMatchObject({
        cpu_seconds: { value: 300, enforced_by: 'rlimit CPU (each process)' },
        // cgroup v1 here; v2 where the server has a delegated cgroup; else rlimits and none.
        memory_bytes: { value: 2048 * 1024 * 1024, enforced_by: expect.stringMatching(/^(cgroup v[12] \(the whole call\)|rlimit DATA \(each process\))$/) },
        processes: { value: 512, enforced_by: expect.stringMatching(/^(cgroup v[12] \(the whole call\)|none)$/) },
      });
      const text = JSON.stringify(report);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(sandbox.root);
      expect((await fetch(`${server.url}/healthz`, { method: 'POST' })).status).toBe(405);
      expect(server.process.output()).toMatch(/^commands: sandboxed with bubblewrap, network never; limits: cpu_seconds 300/m);
      expect(server.process.output()).toMatch(/; setuid and setgid files: refused \(seccomp filter for (x86_64|aarch64)\)$/m);
    } finally {
      await server.process.stop();
    }
  });

  it('a command cannot read the exec-server\'s own environment (its secret) through /proc', async () => {
    const server = await startCli([], { PLANTED_OPERATOR_TOKEN: 'planted-operator-token' });
    try {
      const pid = server.process.child.pid!;
      const result = await server.remote.execCommand(`cat /proc/${pid}/environ; cat /proc/1/environ; env`);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      expect(result.stdout + result.stderr).not.toContain('planted-operator-token');
      expect(result.stderr).toContain(`/proc/${pid}/environ: No such file or directory`);
    } finally {
      await server.process.stop();
    }
  });

  it('limits come from its flags, and bad ones are refused at start', async () => {
    const server = await startCli(['--limit-cpu', '7', '--limit-memory', '96', '--limit-processes', '40', '--limit-file-size', '5', '--limit-tmp', '9']);
    try {
      expect((await health(server.url)).limits).toMatchObject({
        cpu_seconds: { value: 7 },
        memory_bytes: { value: 96 * 1024 * 1024 },
        processes: { value: 40 },
        file_size_bytes: { value: 5 * 1024 * 1024 },
        tmp_bytes: { value: 9 * 1024 * 1024 },
      });
      const result = await server.remote.execCommand('head -c 6000000 /dev/zero > big; ls -l big | cut -d" " -f5');
      expect(result.stdout).toBe(`${5 * 1024 * 1024}\n`);
    } finally {
      await server.process.stop();
    }
    for (const args of [['--limit-memory', '0'], ['--limit-cpu', 'lots'], ['--read-only-path', 'relative/dir']]) {
      const refused = spawnNode(['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', ...args], { env: { TOOLGATE_EXEC_SECRET: SECRET } });
      await new Promise((resolve) => refused.child.once('exit', resolve));
      expect(refused.child.exitCode, args.join(' ')).toBe(2);
      expect(refused.output()).toMatch(/must be (a whole number|an existing absolute path)/);
    }
  });

  it('--read-only-path shows one more host folder, read-only', async () => {
    await writeFile(join(sandbox.outside, 'tool.sh'), 'echo from the toolchain');
    const server = await startCli(['--read-only-path', sandbox.outside]);
    try {
      const result = await server.remote.execCommand(`bash ${join(sandbox.outside, 'tool.sh')}; touch ${join(sandbox.outside, 'x')}`);
      expect(result.stdout).toBe('from the toolchain\n');
      expect(result.stderr).toContain('Read-only file system');
      expect(existsSync(join(sandbox.outside, 'x'))).toBe(false);
    } finally {
      await server.process.stop();
    }
  });
});

describe('toolgate exec-server without a working bubblewrap', () => {
  it('refuses commands (and says why on /healthz) but still serves files', async () => {
    const server = await startCli([], { PATH: sandbox.outside });
    try {
      expect(await health(server.url)).toMatchObject({ status: 'ok', sandbox: 'none', commands: 'refused', reason: expect.stringContaining('bubblewrap (bwrap) is not installed') });
      expect(server.process.output()).toContain('commands: REFUSED, no usable sandbox');
      const error = await execError(server.remote.execCommand('touch ran.txt'));
      expect(error.message).toContain('--unsandboxed');
      expect(existsSync(join(sandbox.root, 'ran.txt'))).toBe(false);
      await server.remote.writeFile('file.txt', new TextEncoder().encode('files still work'));
      expect(existsSync(join(sandbox.root, 'file.txt'))).toBe(true);
    } finally {
      await server.process.stop();
    }
  });

  it('runs them unconfined only with --unsandboxed, and says so', async () => {
    const server = await startCli(['--unsandboxed'], { PATH: `${sandbox.outside}:/usr/bin:/bin` });
    try {
      expect(await health(server.url)).toMatchObject({ sandbox: 'none', commands: 'unsandboxed', reason: 'started with --unsandboxed' });
      expect(server.process.output()).toContain('commands: UNSANDBOXED');
      expect((await server.remote.execCommand('touch ran.txt')).exit_code).toBe(0);
      expect(existsSync(join(sandbox.root, 'ran.txt'))).toBe(true);
    } finally {
      await server.process.stop();
    }
  });
});

describe('--stop-on-stdin-close: the exec-server does not outlive the process that started it', () => {
  it('exits when its standard input closes', async () => {
    const child = spawn(process.execPath, ['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', '--stop-on-stdin-close'], {
      cwd: REPO_ROOT,
      env: { ...process.env, TOOLGATE_EXEC_SECRET: SECRET },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 20_000;
    while (!output.includes('commands: ') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(output).toContain('listening on');
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe('a manifest\'s execution_environment.network reaches the sandbox', () => {
  let listener: CountingListener;
  let port: number;
  const connections = () => listener.connections();

  beforeAll(async () => {
    listener = await countingListener();
    port = listener.port;
  });
  afterAll(() => listener.close());

  it('is refused by an exec-server without --allow-network and runs on one with it', async () => {
    const closed = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['closed'], port: 0 });
    const networked = await bubblewrapSandbox({ allowNetwork: true });
    const open = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['open'], port: 0, sandbox: networked });
    try {
      const policy = { read: 'grant', write: 'grant', execute: 'grant' } as const;
      const manifest = (tenant: string, url: string) =>
        validManifest({ tenant, profile: 'openai', policy, execution_environment: { url, secret: 'env:NET_EXEC_SECRET', network: true }, tools: [] });
      const gw = await testGateway([manifest('closed', closed.url), manifest('open', open.url)], { c: { tenant: 'closed' }, o: { tenant: 'open' } }, { env: { NET_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'closed:NET_EXEC_SECRET;open:NET_EXEC_SECRET' } });
      const shell = async (key: string) => {
        const body = { thread_id: 't', calls: [{ call_id: `c-${key}`, name: 'shell', arguments: { command: `echo hi > /dev/tcp/127.0.0.1/${port} && echo connected` } }] };
        return (await (await gw.request('/v1/dispatch', { key, json: body })).json()).results[0] as { status: string; content: string };
      };
      const refused = await shell('c');
      expect(refused.status).toBe('error');
      expect(refused.content).toContain('--allow-network');
      expect(connections()).toBe(0);
      const allowed = await shell('o');
      expect(allowed.content).toContain('connected');
      expect(connections()).toBe(1);
    } finally {
      await closed.close();
      await open.close();
      await networked.close();
    }
  });
});
