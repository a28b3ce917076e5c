import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemMounts } from '../../lib/exec/sandbox/bubblewrap.ts';
import { BubblewrapSandbox } from '../../lib/exec/sandbox/bubblewrap-sandbox.ts';
import { withoutCgroups } from '../../lib/exec/sandbox/cgroups.ts';
import { DEFAULT_COMMAND_LIMITS } from '../../lib/exec/sandbox/command-limits.ts';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { copyAllowedEtc } from '../../lib/exec/sandbox/etc-copy.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { bubblewrapSandbox, execError, makeSandbox, type Sandbox } from './helpers.ts';

/**
 * Attacks on the host through the workspace: a command (as root when the exec-server is root)
 * makes a setuid or setgid file there, which any local user could then run with its owner's
 * rights. Each runs for real under bubblewrap and is shown to fail, leaving no such file; a
 * control runs the same in the sandbox without the seccomp filter, where it works.
 */
let commands: CommandSandbox;
let unfiltered: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

const ATTACKS_SCRIPT = join(REPO_ROOT, 'test/fixtures/setuid-attacks.py');
const INT80_SOURCE = join(REPO_ROOT, 'test/fixtures/int80-chmod.c');
const hasPython = existsSync('/usr/bin/python3');
const hasGcc = process.arch === 'x64' && existsSync('/usr/bin/gcc');

beforeAll(async () => {
  commands = await bubblewrapSandbox();
  unfiltered = sandboxWithoutFilter();
});
afterAll(async () => {
  await commands.close();
  await unfiltered.close();
});
beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
});
afterEach(() => sandbox.cleanup());

/** The sandbox as it was before the fix: the same mounts and namespaces, no seccomp filter. */
function sandboxWithoutFilter(): BubblewrapSandbox {
  const etcCopy = copyAllowedEtc();
  return new BubblewrapSandbox({
    layout: { bwrap: '/usr/bin/bwrap', ownUserNamespace: true, systemMounts: systemMounts(etcCopy), readOnlyPaths: [] },
    limits: DEFAULT_COMMAND_LIMITS,
    cgroups: withoutCgroups('a control without cgroups'),
    allowNetwork: false,
    etcCopy,
    setuidFiles: 'allowed (the control without the seccomp filter)',
  });
}

/** Every file under `dir` with the setuid or setgid bit, as `path mode` (symlinks not followed). */
function setuidFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stats = lstatSync(path);
      if (stats.isDirectory()) walk(path);
      if (stats.mode & 0o6000) found.push(`${relative(dir, path)} ${(stats.mode & 0o7777).toString(8)}`);
    }
  };
  walk(dir);
  return found.sort();
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o7777).toString(8);
}

describe('a command cannot leave a setuid or setgid file in the workspace', () => {
  it('the review\'s attack: cp /usr/bin/id ./suid_id && chmod 4755 ./suid_id fails; without the filter it leaves -rwsr-xr-x', async () => {
    const attack = 'cp /usr/bin/id ./suid_id && chmod 4755 ./suid_id';
    const control = await new LocalExecutionEnvironment(sandbox.root, { sandbox: unfiltered }).execCommand(attack);
    expect(control.exit_code).toBe(0);
    expect(setuidFiles(sandbox.root)).toEqual(['suid_id 4755']);
    rmSync(join(sandbox.root, 'suid_id'));

    const result = await env.execCommand(attack);
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toContain("chmod: changing permissions of './suid_id': Operation not permitted");
    expect(setuidFiles(sandbox.root)).toEqual([]);
    expect(modeOf(join(sandbox.root, 'suid_id'))).toBe('755');
  });

  it.skipIf(!hasPython)('every syscall that gives a file its mode refuses the setuid and setgid bits (one syscall each, from python)', async () => {
    copyFileSync(ATTACKS_SCRIPT, join(sandbox.root, 'attacks.py'));
    // Each attack in a folder of its own and a process of its own (some are killed).
    const runAll = 'for a in $(python3 attacks.py --list); do mkdir "$a" && (cd "$a" && python3 ../attacks.py "$a") 2>/dev/null || echo "$a: exit $?"; done';
    const control = await new LocalExecutionEnvironment(sandbox.root, { sandbox: unfiltered }).execCommand(runAll);
    expect(control.stdout).toContain('chmod-setuid: ok');
    expect(setuidFiles(sandbox.root)).toEqual(expect.arrayContaining(['chmod-setuid/target 4755', 'chmod-setgid/target 2755', 'os.open-creat/made 4755', 'mknod/made 4755', 'openat2/made 4755', 'os.open-tmpfile/made 4755']));
    for (const entry of readdirSync(sandbox.root)) if (entry !== 'attacks.py') rmSync(join(sandbox.root, entry), { recursive: true });

    const result = await env.execCommand(runAll);
    const outcomes = Object.fromEntries(result.stdout.trim().split('\n').map((line) => line.split(': ')));
    const refused = ['chmod-setuid', 'chmod-setgid', 'fchmod', 'fchmodat', 'fchmodat2', 'fchmodat-high-bits', 'os.open-creat', 'os.open-tmpfile', 'mknod'];
    const expected: Record<string, string> = {
      ...Object.fromEntries(refused.map((name) => [name, 'EPERM'])),
      // Calls the filter cannot judge look absent, so programs fall back to ones it can.
      openat2: 'ENOSYS',
      io_uring_setup: 'ENOSYS',
      'file-capability': 'EPERM',
      ...(process.arch === 'x64' ? { 'chmod-raw': 'EPERM', 'open-raw': 'EPERM', 'creat-raw': 'EPERM', 'mknod-raw': 'EPERM', 'x32-chmod': 'exit 159' } : {}),
    };
    expect(outcomes).toEqual(expected);
    expect(setuidFiles(sandbox.root)).toEqual([]);
    // Refused before anything was made: no file at all where the call would have created one.
    for (const name of ['os.open-creat', 'os.open-tmpfile', 'mknod', 'openat2']) expect(readdirSync(join(sandbox.root, name))).toEqual([]);
  });

  it('tools that set or keep modes fail: chmod u+s / g+s, install -m 4755, cp -p and tar -xp of setuid files, mkdir -m 2755', async () => {
    const setuidProgram = execFileSync('find', ['/usr/bin', '-maxdepth', '1', '-type', 'f', '-perm', '-4000'], { encoding: 'utf8' }).split('\n')[0];
    expect(setuidProgram).toMatch(/^\/usr\/bin\//);
    const attacks = [
      'cp /usr/bin/id a && chmod u+s a',
      'cp /usr/bin/id b && chmod g+s b',
      'install -m 4755 /usr/bin/id c',
      `cp -p ${setuidProgram} d`,
      // tar --mode writes the member's mode into the archive without any chmod; extracting it is the attack.
      'cp /usr/bin/id e && tar --mode=6755 -cf e.tar e && rm e && tar -xpf e.tar',
      'mkdir -m 2755 f',
    ];
    const result = await env.execCommand(attacks.map((attack) => `(${attack}) 2>&1; echo "exit $?"`).join('; '));
    const exitCodes = [...result.stdout.matchAll(/exit (\d+)/g)].map((match) => Number(match[1]));
    expect(exitCodes).toHaveLength(attacks.length);
    expect(exitCodes.filter((code) => code === 0)).toEqual([]);
    // Each failed at its chmod (tar at its last step), not for some other reason.
    expect(result.stdout.match(/Operation not permitted/g)).toHaveLength(attacks.length);
    expect(setuidFiles(sandbox.root)).toEqual([]);
  });

  it('a hard link to a setuid program of the host fails: the workspace is another mount (EXDEV)', async () => {
    const result = await env.execCommand('ln /usr/bin/passwd ./passwd || ln /usr/bin/su ./su');
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toContain('Invalid cross-device link');
    expect(readdirSync(sandbox.root)).toEqual([]);
  });

  it('writing to a setuid file the host left in the workspace clears its bit, and it cannot be set again', async () => {
    const planted = join(sandbox.root, 'planted');
    writeFileSync(planted, '#!/bin/sh\necho host\n');
    chmodSync(planted, 0o4755);
    const result = await env.execCommand('cat /usr/bin/id > planted; chmod 4755 planted');
    expect(result.stderr).toContain('Operation not permitted');
    expect(modeOf(planted)).toBe('755');
    expect(readFileSync(planted)).toEqual(readFileSync('/usr/bin/id'));
  });

  it('the exec-server\'s own write to a setuid file the host left there drops the bit first (root keeps it otherwise: CAP_FSETID)', async () => {
    const planted = join(sandbox.root, 'planted');
    writeFileSync(planted, '#!/bin/sh\necho host\n');
    chmodSync(planted, 0o6755);
    await env.writeFile('planted', new TextEncoder().encode('#!/bin/sh\nid\n'));
    expect(modeOf(planted)).toBe('755');
    expect(readFileSync(planted, 'utf8')).toBe('#!/bin/sh\nid\n');
    // An ordinary file keeps its mode.
    writeFileSync(join(sandbox.root, 'tool'), 'x');
    chmodSync(join(sandbox.root, 'tool'), 0o750);
    await env.writeFile('tool', new TextEncoder().encode('y'));
    expect(modeOf(join(sandbox.root, 'tool'))).toBe('750');
  });

  it.skipIf(!hasGcc)('a 32-bit syscall (int 0x80, whose numbers the filter does not judge) kills the process; without the filter it makes the file setuid', async () => {
    execFileSync('/usr/bin/gcc', ['-no-pie', '-o', join(sandbox.root, 'int80'), INT80_SOURCE]);
    const run = 'echo > target && ./int80; echo "exit $?"';
    const control = await new LocalExecutionEnvironment(sandbox.root, { sandbox: unfiltered }).execCommand(run);
    expect(control.stdout).toBe('exit 0\n');
    expect(setuidFiles(sandbox.root)).toEqual(['target 4755']);
    rmSync(join(sandbox.root, 'target'));

    const result = await env.execCommand(run);
    expect(result.stdout).toBe('exit 159\n');
    expect(result.stderr).toContain('Bad system call');
    expect(setuidFiles(sandbox.root)).toEqual([]);
  });
});

describe('ordinary modes still work', () => {
  it('chmod 755, 644, +x, a sticky folder, mkdir -m 700, install -m 755, cp -p of an ordinary program, files made with 0o755', async () => {
    const script = [
      'echo x > a && chmod 755 a',
      'echo x > b && chmod 755 b && chmod 644 b',
      'echo x > c && chmod +x c',
      'mkdir d && chmod 1777 d',
      'mkdir -m 700 e',
      'install -m 755 /usr/bin/id f',
      'cp -p /usr/bin/id g',
      'touch h && chmod u=rwx,go=rx h && chmod -x h',
      ...(hasPython ? ['python3 -c "import os; os.close(os.open(\'i\', os.O_CREAT | os.O_WRONLY, 0o755))"'] : []),
    ].join(' && ');
    const result = await env.execCommand(`umask 022 && ${script}`);
    expect(result).toMatchObject({ exit_code: 0, stderr: '' });
    const root = sandbox.root;
    expect([modeOf(join(root, 'a')), modeOf(join(root, 'b')), modeOf(join(root, 'c')), modeOf(join(root, 'd')), modeOf(join(root, 'e')), modeOf(join(root, 'f')), modeOf(join(root, 'g')), modeOf(join(root, 'h'))])
      .toEqual(['755', '644', '755', '1777', '700', '755', '755', '644']);
    if (hasPython) expect(modeOf(join(root, 'i'))).toBe('755');
  });
});

describe('the filter is always there', () => {
  it('/healthz says setuid and setgid files are refused, and the filter\'s descriptor is closed before the command runs', async () => {
    const architecture = { x64: 'x86_64', arm64: 'aarch64' }[process.arch as string];
    expect(commands.report().setuid_files).toBe(`refused (seccomp filter for ${architecture})`);
    const result = await env.execCommand('ls -l /proc/self/fd/');
    expect(result.stdout).toContain('0 -> /dev/null');
    expect(result.stdout).not.toContain('setuid-filter.bpf');
  });

  it('a workspace holding the exec-server\'s temporary folder (--root /tmp) is refused: a command there could rewrite the filter for the next one', async () => {
    const error = await execError(new LocalExecutionEnvironment(tmpdir(), { sandbox: commands }).execCommand(`touch ${join(sandbox.root, 'ran')}`));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('set TMPDIR to a folder outside --root');
    expect(existsSync(join(sandbox.root, 'ran'))).toBe(false);
    // The same sandbox still runs commands in an ordinary workspace, with the filter.
    expect((await env.execCommand('touch x && chmod 4755 x')).stderr).toContain('Operation not permitted');
  });

  it('a command never runs without it: when the filter file is gone, the call fails and nothing runs', async () => {
    const filterFolders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(`toolgate-sandbox-seccomp-${process.pid}-`)));
    const before = filterFolders();
    const own = await bubblewrapSandbox();
    try {
      const [folder] = [...filterFolders()].filter((name) => !before.has(name));
      expect(folder).toBeDefined();
      rmSync(join(tmpdir(), folder!), { recursive: true });
      const result = await new LocalExecutionEnvironment(sandbox.root, { sandbox: own }).execCommand('touch ran');
      expect(result.exit_code).toBe(125);
      expect(existsSync(join(sandbox.root, 'ran'))).toBe(false);
    } finally {
      await own.close();
    }
  });
});
