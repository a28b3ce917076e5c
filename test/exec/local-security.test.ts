import { existsSync } from 'node:fs';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { bubblewrapSandbox, execError, isRunning, makeSandbox, unsandboxed, utf8, waitUntil, type Sandbox } from './helpers.ts';

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
  await writeFile(join(sandbox.outside, 'secret.txt'), 'outside secret');
});
afterEach(() => sandbox.cleanup());

async function outsideUntouched(): Promise<void> {
  expect((await readdir(sandbox.outside)).sort()).toEqual(['secret.txt']);
  expect(await readFile(join(sandbox.outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  expect((await readdir(sandbox.base)).sort()).toEqual(['outside', 'root']);
}

describe('paths cannot leave the root', () => {
  it.each([
    ['../ traversal', '../outside/secret.txt'],
    ['deep ../ traversal', 'a/b/../../../outside/new.txt'],
    ['an absolute path elsewhere', '/etc/passwd'],
  ])('refuses %s for read, write, move, delete, stat and listing', async (_, path) => {
    for (const attempt of [
      env.readFile(path),
      env.writeFile(path, utf8('pwned')),
      env.writeFile(`${path}-new`, utf8('pwned')),
      env.deleteFile(path),
      env.stat(path),
      env.fileExists(path),
      env.listDirectory(path, 1),
      env.grep('x', path),
      env.glob('*', path),
      env.execCommand('true', { cwd: path }),
    ]) {
      const error = await execError(attempt);
      expect(error.code).toBe('outside_root');
      expect(error.message).toContain('outside the environment root');
    }
    await outsideUntouched();
  });

  it('refuses moving a file out of the root or into it from outside', async () => {
    await env.writeFile('inside.txt', utf8('x'));
    expect((await execError(env.moveFile('inside.txt', '../outside/moved.txt'))).code).toBe('outside_root');
    expect((await execError(env.moveFile(join(sandbox.outside, 'secret.txt'), 'stolen.txt'))).code).toBe('outside_root');
    expect(await env.fileExists('inside.txt')).toBe(true);
    await outsideUntouched();
  });

  it('refuses NUL bytes in paths', async () => {
    const error = await execError(env.writeFile('file.txt\0.png', utf8('x')));
    expect(error.code).toBe('invalid_path');
    expect(error.message).toContain('NUL');
    expect((await execError(env.readFile('a\0b'))).code).toBe('invalid_path');
    expect(await readdir(sandbox.root)).toEqual([]);
  });
});

describe('symlinks cannot lead out of the root', () => {
  it('refuses reading and writing through a file symlink that points outside', async () => {
    await symlink(join(sandbox.outside, 'secret.txt'), join(sandbox.root, 'link.txt'));
    const read = await execError(env.readFile('link.txt'));
    expect(read.code).toBe('outside_root');
    expect(read.message).toContain('symbolic link');
    expect((await execError(env.writeFile('link.txt', utf8('pwned')))).code).toBe('outside_root');
    expect((await execError(env.stat('link.txt'))).code).toBe('outside_root');
    expect((await execError(env.moveFile('link.txt', 'moved.txt'))).code).toBe('outside_root');
    await outsideUntouched();
  });

  it('refuses reading, writing and creating folders through a folder symlink that points outside', async () => {
    await symlink(sandbox.outside, join(sandbox.root, 'escape'));
    expect((await execError(env.readFile('escape/secret.txt'))).code).toBe('outside_root');
    expect((await execError(env.writeFile('escape/secret.txt', utf8('pwned')))).code).toBe('outside_root');
    expect((await execError(env.writeFile('escape/new/deep.txt', utf8('pwned')))).code).toBe('outside_root');
    expect((await execError(env.moveFile('escape/secret.txt', 'stolen.txt'))).code).toBe('outside_root');
    expect((await execError(env.listDirectory('escape', 1))).code).toBe('outside_root');
    expect((await execError(env.execCommand('touch pwned', { cwd: 'escape' }))).code).toBe('outside_root');
    await env.writeFile('safe.txt', utf8('x'));
    expect((await execError(env.moveFile('safe.txt', 'escape/moved.txt'))).code).toBe('outside_root');
    await outsideUntouched();
  });

  it('refuses writing through a dangling symlink whose target would be outside', async () => {
    await symlink(join(sandbox.outside, 'created-by-write.txt'), join(sandbox.root, 'dangling.txt'));
    await symlink(join(sandbox.outside, 'no-such-folder'), join(sandbox.root, 'dangling-dir'));
    expect((await execError(env.writeFile('dangling.txt', utf8('pwned')))).code).toBe('outside_root');
    expect((await execError(env.writeFile('dangling-dir/a/b.txt', utf8('pwned')))).code).toBe('outside_root');
    await outsideUntouched();
  });

  it('refuses a chain of symlinks that ends outside', async () => {
    await symlink(sandbox.outside, join(sandbox.root, 'hop2'));
    await symlink(join(sandbox.root, 'hop2'), join(sandbox.root, 'hop1'));
    expect((await execError(env.writeFile('hop1/x.txt', utf8('pwned')))).code).toBe('outside_root');
    await outsideUntouched();
  });

  it('does not follow symlinks out of the root while searching', async () => {
    await symlink(sandbox.outside, join(sandbox.root, 'escape'));
    await symlink(join(sandbox.outside, 'secret.txt'), join(sandbox.root, 'secret-link.txt'));
    expect(await env.grep('secret', '.')).toEqual([]);
    expect(await env.glob('**/*', '.')).toEqual([]);
  });
});

describe('commands start from an allowlisted environment, not the server\'s', () => {
  const planted: Record<string, string> = {
    FOO_SECRET: 'planted-1',
    TOOLGATE_EXEC_SECRET: 'planted-2',
    SLACK_SIGNING_SECRET: 'planted-3',
    AWS_SECRET_ACCESS_KEY: 'planted-4',
    // Not secret-looking at all: an allowlist does not guess.
    TOOLGATE_TEST_VISIBLE: 'planted-5',
    NODE_OPTIONS: '--require=/planted-6.js',
  };

  beforeAll(() => Object.assign(process.env, planted));
  afterAll(() => {
    for (const name of Object.keys(planted)) delete process.env[name];
  });

  it.each([
    ['in the sandbox', () => env, '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['unsandboxed', () => new LocalExecutionEnvironment(sandbox.root, { sandbox: unsandboxed() }), process.env.PATH],
  ])('%s: none of the server\'s own variables, the allowlisted ones, and the caller\'s explicit env', async (_, environment, path) => {
    const result = await environment().execCommand('env', { env: { EXPLICIT_TOKEN: 'caller-chose-this' } });
    for (let i = 1; i <= 6; i++) expect(result.stdout).not.toContain(`planted-${i}`);
    expect(result.stdout).toContain('EXPLICIT_TOKEN=caller-chose-this');
    expect(result.stdout).toContain(`\nPATH=${path}\n`);
    const names = result.stdout.split('\n').filter(Boolean).map((line) => line.slice(0, line.indexOf('=')));
    const allowed = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'EXPLICIT_TOKEN', 'PWD', 'SHLVL', '_'];
    expect(names.filter((name) => !allowed.includes(name) && !name.startsWith('LC_'))).toEqual([]);
  });
});

// Unsandboxed (--unsandboxed) the process group is all there is; in the sandbox the pid namespace does more (sandbox.test.ts).
describe('unsandboxed, timeouts kill the whole process group', () => {
  beforeEach(() => {
    env = new LocalExecutionEnvironment(sandbox.root, { sandbox: unsandboxed() });
  });

  it('kills a background grandchild with the shell on timeout', async () => {
    const result = await env.execCommand('sleep 300 & echo $! > bg.pid; echo started; sleep 100', { timeout_ms: 500 });
    expect(result).toMatchObject({ timed_out: true, exit_code: null, signal: 'SIGTERM', stdout: 'started\n' });
    const pid = Number(await readFile(join(sandbox.root, 'bg.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => !isRunning(pid), 4_000)).toBe(true);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const command = `trap '' TERM; (trap '' TERM; sleep 300) & echo $! > bg.pid; sleep 100`;
    const result = await env.execCommand(command, { timeout_ms: 300 });
    expect(result.timed_out).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    const pid = Number(await readFile(join(sandbox.root, 'bg.pid'), 'utf8'));
    expect(await waitUntil(() => !isRunning(pid), 4_000)).toBe(true);
  });

  it('answers once the shell exits even if a background job keeps stdout open', async () => {
    const result = await env.execCommand('sleep 5 & echo $! > bg.pid; echo done', { timeout_ms: 10_000 });
    expect(result).toMatchObject({ exit_code: 0, stdout: 'done\n', timed_out: false });
    expect(result.duration_ms).toBeLessThan(4_000);
    process.kill(Number(await readFile(join(sandbox.root, 'bg.pid'), 'utf8')));
  });
});

describe('output is capped in memory', () => {
  it('keeps the first 1 MiB of stdout by default and says it was capped', async () => {
    const result = await env.execCommand('head -c 3000000 /dev/zero | tr "\\0" a; echo tail >&2');
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.stdout).toMatch(/^a+$/);
    expect(result.stderr).toBe('tail\n');
    expect(result.output_capped).toBe(true);
    expect(result.exit_code).toBe(0);
  });

  it('drops a character cut in half at the cap instead of mangling it', async () => {
    const small = new LocalExecutionEnvironment(sandbox.root, { maxOutputBytes: 11, sandbox: commands });
    const result = await small.execCommand('printf "ééééééééé"; printf "%s" "$(head -c 20 /dev/zero | tr "\\0" e)" >&2');
    expect(result.stdout).toBe('ééééé');
    expect(result.stderr).toBe('eeeeeeeeeee');
    expect(result.output_capped).toBe(true);
  });

  it('does not flag output under the cap', async () => {
    expect((await env.execCommand('echo short')).output_capped).toBe(false);
    expect(existsSync(join(sandbox.root, 'bg.pid'))).toBe(false);
  });
});
