import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemMounts } from '../../lib/exec/sandbox/bubblewrap.ts';
import { BubblewrapSandbox } from '../../lib/exec/sandbox/bubblewrap-sandbox.ts';
import { withoutCgroups } from '../../lib/exec/sandbox/cgroups.ts';
import { DEFAULT_COMMAND_LIMITS } from '../../lib/exec/sandbox/command-limits.ts';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { copyAllowedEtc } from '../../lib/exec/sandbox/etc-copy.ts';
import { probeCommandSandbox } from '../../lib/exec/sandbox/probe.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { bubblewrapSandbox, countingListener, execError, makeSandbox, waitUntil, type CountingListener, type Sandbox } from './helpers.ts';

const MIB = 1024 * 1024;

/**
 * Attacks a granted or approved command could make, each run for real under bubblewrap and shown
 * to fail. Where it helps, a control shows the attack working without the protection, so the test
 * could fail.
 */
let commands: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

beforeAll(async () => {
  commands = await bubblewrapSandbox();
});
afterAll(() => commands.close());
beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
});
afterEach(() => sandbox.cleanup());

/** Every file under `dir` with its bytes and mode, to show nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      out[relative(dir, path)] = stats.isDirectory() ? `dir ${stats.mode}` : `${stats.mode} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

/** Host pids whose command line contains `marker` (the sandbox's processes are host processes too). */
function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

describe('nothing of the host is visible', () => {
  it('cannot read another process\'s environment through /proc (the gateway\'s secrets), nor see the host\'s processes', async () => {
    // Stands for the gateway or the exec-server: a process of the same user holding a secret in its environment.
    const holder = spawn('sleep', ['60'], { env: { PLANTED_GATEWAY_SECRET: 'planted-in-the-server' }, stdio: 'ignore' });
    try {
      // Control: from the host the secret is right there, so the test would see a leak.
      expect(readFileSync(`/proc/${holder.pid}/environ`, 'utf8')).toContain('planted-in-the-server');
      const result = await env.execCommand(`ls /proc | grep -cE '^[0-9]+$'; cat /proc/${holder.pid}/environ; cat /proc/${process.pid}/environ; cat /proc/1/environ`);
      expect(result.stdout + result.stderr).not.toContain('planted-in-the-server');
      expect(result.stderr).toContain(`/proc/${holder.pid}/environ: No such file or directory`);
      // bwrap's init, the shell, and the commands of the pipeline: nothing of the host's hundreds.
      expect(Number(result.stdout.split('\n')[0])).toBeLessThan(10);
    } finally {
      holder.kill();
    }
  });

  it('cannot read a file outside the workspace, the project, home folders or /etc secrets', async () => {
    await writeFile(join(sandbox.outside, 'secret.txt'), 'outside secret');
    const targets = [join(sandbox.outside, 'secret.txt'), join(REPO_ROOT, 'package.json'), '/root', '/home', '/etc/shadow', '/etc/ssl/private', '/run', '/sys/fs/cgroup', '/work'];
    const result = await env.execCommand(targets.map((target) => `ls -d ${target} && cat ${target}`).join('; '));
    expect(result.stdout).toBe('');
    for (const target of targets) expect(result.stderr).toContain(`cannot access '${target}': No such file or directory`);
    expect((await env.execCommand('ls /')).stdout.split('\n').filter(Boolean)).toEqual(
      expect.arrayContaining(['bin', 'dev', 'etc', 'proc', 'tmp', 'usr']),
    );
    expect((await env.execCommand('ls /')).stdout).not.toMatch(/^(root|home|work|run|sys|opt|srv|mnt)$/m);
  });

  it('refuses to serve the host\'s own root as a workspace to commands', async () => {
    const error = await execError(new LocalExecutionEnvironment('/', { sandbox: commands }).execCommand('touch /pwned'));
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('would expose the host itself') });
    expect(existsSync('/pwned')).toBe(false);
  });

  it('still sees the workspace at its own path and runs the usual tools', async () => {
    await writeFile(join(sandbox.root, 'app.js'), 'console.log("hi from node")');
    const result = await env.execCommand('pwd; node app.js; git --version >/dev/null && echo git ok; echo $HOME');
    expect(result).toMatchObject({ exit_code: 0, stdout: `${await env.workingDirectory()}\nhi from node\ngit ok\n/tmp\n` });
  });

  it('cannot change the kernel\'s settings, remount or write system folders, or make a user namespace', async () => {
    const corePattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    // Writes the current value back: harmless even if the sandbox failed.
    const result = await env.execCommand(
      'cat /proc/sys/kernel/core_pattern > /tmp/cp && cat /tmp/cp > /proc/sys/kernel/core_pattern; echo "core=$?"; ' +
        'mount -o remount,rw,bind /usr 2>/dev/null; echo "remount=$?"; touch /usr/pwned /etc/pwned /pwned 2>/dev/null; echo "touch=$?"; ' +
        'grep CapEff /proc/self/status; unshare --user true 2>/dev/null; echo "userns=$?"',
    );
    expect(result.stdout).toBe('core=1\nremount=32\ntouch=1\nCapEff:\t0000000000000000\nuserns=1\n');
    expect(result.stderr).toContain('/proc/sys/kernel/core_pattern: Read-only file system');
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(corePattern);
    expect(existsSync('/usr/pwned')).toBe(false);
  });
});

describe('no network unless the operator allows it and the call asks', () => {
  let listener: CountingListener;
  let port: number;
  const connections = () => listener.connections();

  beforeAll(async () => {
    listener = await countingListener();
    port = listener.port;
  });
  afterAll(() => listener.close());

  const connect = () => `echo hello > /dev/tcp/127.0.0.1/${port} && echo connected > connected.txt`;

  it('cannot connect to a listener on the host\'s 127.0.0.1', async () => {
    const result = await env.execCommand(connect());
    expect(result.exit_code).not.toBe(0);
    expect(result.stderr).toContain('Connection refused');
    expect(connections()).toBe(0);
    expect(existsSync(join(sandbox.root, 'connected.txt'))).toBe(false);
  });

  it('refuses a call that asks for the network when the operator did not allow it; nothing runs', async () => {
    const error = await execError(env.execCommand(connect(), { network: true }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('--allow-network');
    expect(connections()).toBe(0);
    expect(existsSync(join(sandbox.root, 'connected.txt'))).toBe(false);
  });

  it('with --allow-network, connects only when the call asks, and never for a read_only call', async () => {
    const networked = await bubblewrapSandbox({ allowNetwork: true });
    try {
      const allowed = new LocalExecutionEnvironment(sandbox.root, { sandbox: networked });
      expect((await allowed.execCommand(connect())).exit_code).not.toBe(0);
      expect((await allowed.execCommand(`echo hello > /dev/tcp/127.0.0.1/${port}`, { network: true, read_only: true })).exit_code).not.toBe(0);
      expect(connections()).toBe(0);
      expect(await allowed.execCommand(connect(), { network: true })).toMatchObject({ exit_code: 0 });
      expect(await waitUntil(() => connections() === 1, 2_000)).toBe(true);
    } finally {
      await networked.close();
    }
  });
});

describe('every process of the call ends with it', () => {
  it('a background job is gone when the call returns, and the call does not wait for it', async () => {
    const marker = `toolgate-bg-${process.pid}-${Date.now()}`;
    const running = env.execCommand(`(exec -a ${marker} sleep 1000) & sleep 1; echo done`);
    // Control: while the call runs, the host does see the job.
    expect(await waitUntil(() => hostProcessesWith(`${marker}\0`).length > 0, 5_000)).toBe(true);
    const result = await running;
    expect(result).toMatchObject({ exit_code: 0, stdout: 'done\n', timed_out: false });
    expect(result.duration_ms).toBeLessThan(10_000);
    expect(hostProcessesWith(`${marker}\0`)).toEqual([]);
  });

  it('on timeout, the shell and its background jobs are all gone', async () => {
    const marker = `toolgate-timeout-${process.pid}-${Date.now()}`;
    const result = await env.execCommand(`(exec -a ${marker} sleep 1000) & sleep 100`, { timeout_ms: 1_000 });
    expect(result.timed_out).toBe(true);
    expect(await waitUntil(() => hostProcessesWith(marker).length === 0, 3_000)).toBe(true);
  });

  it('a fork bomb hits the process limit, other calls still run, and nothing of it survives', async (context) => {
    const small = await bubblewrapSandbox({ limits: { processes: 64 } });
    // Without a pids cgroup nothing bounds a bomb run as root: not a thing to set off on a shared machine.
    if (small.report().limits.processes?.enforced_by === 'none') {
      await small.close();
      context.skip();
    }
    try {
      const bombed = new LocalExecutionEnvironment(sandbox.root, { sandbox: small });
      const marker = `toolgate-bomb-${process.pid}-${Date.now()}`;
      const bomb = bombed.execCommand(`# ${marker}\nbomb() { bomb | bomb & }; bomb; sleep 100`, { timeout_ms: 3_000 });
      const meanwhile = await bombed.execCommand('echo still alive');
      expect(meanwhile).toMatchObject({ exit_code: 0, stdout: 'still alive\n' });
      const result = await bomb;
      expect(result.timed_out).toBe(true);
      expect(result.stderr).toContain('limit of 64 processes was reached');
      expect(await waitUntil(() => hostProcessesWith(marker).length === 0, 3_000)).toBe(true);
    } finally {
      await small.close();
    }
  });
});

describe('memory and CPU limits stop a command with a clear result', () => {
  let limited: CommandSandbox;
  beforeAll(async () => {
    limited = await bubblewrapSandbox({ limits: { memory_bytes: 64 * MIB, cpu_seconds: 1 } });
  });
  afterAll(() => limited.close());

  const hog = (bytes: number) => `x=$(head -c ${bytes} /dev/zero | tr '\\0' a); echo \${#x}`;

  it('stops a memory hog at the memory limit and says so', async () => {
    const environment = new LocalExecutionEnvironment(sandbox.root, { sandbox: limited });
    expect((await environment.execCommand(hog(8 * MIB))).stdout).toBe(`${8 * MIB}\n`);
    const result = await environment.execCommand(hog(300 * MIB));
    expect(result.stdout).toBe('');
    if (limited.report().limits.memory_bytes?.enforced_by.startsWith('cgroup')) {
      expect(result.exit_code).toBe(137);
      expect(result.stderr).toContain('killed because the command used more than the sandbox\'s memory limit of 64 MiB');
    } else {
      // RLIMIT_DATA: the allocation fails in the shell instead.
      expect(result.exit_code).not.toBe(0);
      expect(result.stderr).toMatch(/cannot allocate/);
    }
  });

  it('stops a CPU spin at the CPU time limit, well before its timeout, and says so', async () => {
    const environment = new LocalExecutionEnvironment(sandbox.root, { sandbox: limited });
    const result = await environment.execCommand('while :; do :; done', { timeout_ms: 60_000 });
    expect(result).toMatchObject({ exit_code: 152, timed_out: false });
    expect(result.stderr).toContain('SIGXCPU: it used the sandbox\'s CPU time limit of 1 s');
  });
});

describe('without cgroups (not root, no delegation), rlimits still bound each process', () => {
  it('a memory hog fails its allocation at RLIMIT_DATA; /healthz says how each limit is enforced', async () => {
    const etcCopy = copyAllowedEtc();
    const rlimitsOnly = new BubblewrapSandbox({
      layout: { bwrap: '/usr/bin/bwrap', ownUserNamespace: true, systemMounts: systemMounts(etcCopy), readOnlyPaths: [] },
      limits: { ...DEFAULT_COMMAND_LIMITS, memory_bytes: 64 * MIB },
      cgroups: withoutCgroups('no cgroup controller is writable for this process'),
      allowNetwork: false,
      etcCopy,
      setuidFiles: 'allowed (this test builds its sandbox without the seccomp filter)',
    });
    try {
      expect(rlimitsOnly.report()).toMatchObject({
        reason: 'no cgroup controller is writable for this process',
        limits: { memory_bytes: { enforced_by: 'rlimit DATA (each process)' }, processes: { enforced_by: 'none' } },
      });
      const environment = new LocalExecutionEnvironment(sandbox.root, { sandbox: rlimitsOnly });
      expect((await environment.execCommand(`x=$(head -c ${8 * MIB} /dev/zero | tr '\\0' a); echo \${#x}`)).stdout).toBe(`${8 * MIB}\n`);
      const result = await environment.execCommand(`x=$(head -c ${300 * MIB} /dev/zero | tr '\\0' a); echo \${#x}`);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/cannot allocate/);
    } finally {
      await rlimitsOnly.close();
    }
  });
});

describe('read_only: the workspace cannot change', () => {
  beforeEach(async () => {
    await mkdir(join(sandbox.root, 'src'));
    await writeFile(join(sandbox.root, 'src', 'kept.txt'), 'original\n');
  });

  it('refuses every kind of write and leaves the workspace as it was, while reads work', async () => {
    const before = snapshot(sandbox.root);
    const result = await env.execCommand(
      'cat src/kept.txt; echo x > new.txt; echo y >> src/kept.txt; rm src/kept.txt; mkdir made; mv src/kept.txt moved.txt; chmod 777 src; touch src/kept.txt; echo tmp > /tmp/t && cat /tmp/t',
      { read_only: true },
    );
    expect(result.stdout).toBe('original\ntmp\n');
    expect(result.stderr.match(/Read-only file system/g)?.length).toBeGreaterThanOrEqual(6);
    expect(snapshot(sandbox.root)).toEqual(before);
  });

  it('a core.fsmonitor hook planted in .git/config runs during an approved `git status`, never a read_only one', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: sandbox.root, stdio: 'pipe' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first');
    git('config', 'core.fsmonitor', 'echo hook-ran >&2; echo pwned > pwned.txt; git config core.sshCommand evil; false');
    // Control: without read_only the planted hook does what it was written to do.
    const control = await env.execCommand('git status --short');
    expect(control.stderr).toContain('hook-ran');
    expect(readFileSync(join(sandbox.root, 'pwned.txt'), 'utf8')).toBe('pwned\n');
    execFileSync('rm', ['pwned.txt'], { cwd: sandbox.root });
    expect(await readFile(join(sandbox.root, '.git', 'config'), 'utf8')).toMatch(/^\s*sshCommand = evil$/m);
    git('config', '--unset', 'core.sshCommand');
    const before = snapshot(sandbox.root);

    // read_only: git's guard (lib/exec/sandbox/git-guard.ts) refuses the setting; see sandbox-git.test.ts.
    const attack = await env.execCommand('git status --short', { read_only: true });
    expect(attack.stderr).not.toContain('hook-ran');
    expect(attack.stderr).toContain('toolgate: git was not run: the local setting core.fsmonitor');
    expect(snapshot(sandbox.root)).toEqual(before);
    expect(await readFile(join(sandbox.root, '.git', 'config'), 'utf8')).not.toMatch(/^\s*sshCommand = evil$/m);
  });
});

describe('without a working bubblewrap, commands are refused unless the operator says --unsandboxed', () => {
  it('refuses with how to fix it, and runs nothing', async () => {
    const none = await probeCommandSandbox({ searchPath: sandbox.outside });
    expect(none.report()).toMatchObject({ sandbox: 'none', commands: 'refused' });
    expect(none.report().reason).toContain('bubblewrap (bwrap) is not installed');
    const refused = new LocalExecutionEnvironment(sandbox.root, { sandbox: none });
    const error = await execError(refused.execCommand('touch ran.txt'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('apt-get install bubblewrap');
    expect(error.message).toContain('--unsandboxed');
    expect(existsSync(join(sandbox.root, 'ran.txt'))).toBe(false);
  });

  it('a LocalExecutionEnvironment given no sandbox refuses commands too', async () => {
    const bare = new LocalExecutionEnvironment(sandbox.root);
    expect((await execError(bare.execCommand('touch ran.txt'))).code).toBe('unavailable');
    expect(existsSync(join(sandbox.root, 'ran.txt'))).toBe(false);
  });

  it('--unsandboxed runs commands as ordinary processes, but refuses a read_only call', async () => {
    const plain = await probeCommandSandbox({ searchPath: sandbox.outside, unsandboxed: true });
    expect(plain.report()).toMatchObject({ sandbox: 'none', commands: 'unsandboxed' });
    const unconfined = new LocalExecutionEnvironment(sandbox.root, { sandbox: plain });
    expect((await unconfined.execCommand(`cat ${join(REPO_ROOT, 'package.json')} > /dev/null && echo host visible`)).stdout).toBe('host visible\n');
    const error = await execError(unconfined.execCommand('touch ran.txt', { read_only: true }));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('cannot run one with the workspace read-only');
    expect(existsSync(join(sandbox.root, 'ran.txt'))).toBe(false);
  });
});
