import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import type { ExecResult } from '../../lib/exec/environment.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { bubblewrapSandbox, makeSandbox, type Sandbox } from './helpers.ts';

/**
 * Issue 22, finding 8: under a read-only grant, git runs no program a repository names. Each
 * repository here names a script (fsmonitor, a textconv or filter driver chosen by
 * .gitattributes, a pager, an included file, a submodule's own config, a nested repository's
 * `gitdir:` target); the script says so on stdout and leaves a file in the call's /tmp, which the
 * same command then looks for. Without the guard every one of them ran (the read-only mount
 * only kept it from changing anything).
 */
const HOOK_SAYS = 'HOOK-RAN';
const MARKER_SAYS = 'MARKER-LEFT';
/** Appended to each command: whether the script left its file in this call's /tmp. */
const LOOK_FOR_MARKER = `; test -e /tmp/hook-ran && echo ${MARKER_SAYS}; true`;

let commands: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;
let hook: string;

/** git on the host, as whoever prepared the workspace (a checkout step, an earlier approved call). */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: sandbox.base, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repository at `name` in the workspace with one committed file. */
function repository(name: string, file = 'a.txt', content = 'one\n'): string {
  const folder = join(sandbox.root, name);
  mkdirSync(folder, { recursive: true });
  git(folder, 'init', '-q', '-b', 'main');
  writeFileSync(join(folder, file), content);
  git(folder, 'add', '.');
  git(folder, 'commit', '-qm', 'first');
  return folder;
}

function readOnly(command: string): Promise<ExecResult> {
  return env.execCommand(`${command}${LOOK_FOR_MARKER}`, { read_only: true, timeout_ms: 20_000 });
}

/** The repository's script never ran; git said why it did not run (on stderr, or the terminal `script` gave it). */
function refused(result: ExecResult, setting: string): void {
  const output = `${result.stdout}\n${result.stderr}`;
  expect(output).not.toContain(HOOK_SAYS);
  expect(output).not.toContain(MARKER_SAYS);
  expect(output).toContain('toolgate: git was not run');
  expect(output).toContain(setting);
}

beforeAll(async () => {
  commands = await bubblewrapSandbox();
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
  hook = join(sandbox.root, 'hook.sh');
  // Says it ran (stdout, stderr), leaves a file in /tmp, and prints its input back (as a textconv, filter or pager would).
  writeFileSync(hook, `#!/bin/sh\necho ${HOOK_SAYS}\necho ${HOOK_SAYS} >&2\ntouch /tmp/hook-ran\ncat "$@" 2>/dev/null\nexit 0\n`, { mode: 0o755 });
}, 60_000);
afterAll(async () => {
  await commands?.close();
  await sandbox?.cleanup();
});

describe('attack: under a read-only grant, git never runs a program the repository names', () => {
  it('core.fsmonitor in the repository itself', async () => {
    git(repository('local'), 'config', 'core.fsmonitor', hook);
    refused(await readOnly('cd local && git status --short'), 'core.fsmonitor');
  });

  it('core.fsmonitor in the gitdir a nested repository points to (vendor/sub/.git says gitdir: ../evil)', async () => {
    const sub = join(sandbox.root, 'vendor', 'sub');
    mkdirSync(sub, { recursive: true });
    git(sub, 'init', '-q', '-b', 'main', `--separate-git-dir=${join(sandbox.root, 'vendor', 'evil')}`);
    writeFileSync(join(sub, '.git'), 'gitdir: ../evil\n');
    writeFileSync(join(sub, 'a.txt'), 'one\n');
    git(sub, 'add', '.');
    git(sub, 'commit', '-qm', 'first');
    git(sub, 'config', 'core.fsmonitor', hook);
    refused(await readOnly('cd vendor/sub && git status'), 'core.fsmonitor');
  });

  it('a textconv driver named from .gitattributes', async () => {
    const folder = repository('textconv', '.gitattributes', '*.txt diff=evil\n');
    writeFileSync(join(folder, 'a.txt'), 'one\n');
    git(folder, 'add', '.');
    git(folder, 'commit', '-qm', 'second');
    writeFileSync(join(folder, 'a.txt'), 'two\n');
    git(folder, 'config', 'diff.evil.textconv', hook);
    refused(await readOnly('cd textconv && git diff'), 'diff.evil.textconv');
    refused(await readOnly('cd textconv && git log -p'), 'diff.evil.textconv');
  });

  it('a clean filter named from .gitattributes', async () => {
    const folder = repository('filter', '.gitattributes', '*.dat filter=evil\n');
    writeFileSync(join(folder, 'a.dat'), 'one\n');
    git(folder, 'add', '.');
    git(folder, 'commit', '-qm', 'second');
    writeFileSync(join(folder, 'a.dat'), 'two\n');
    git(folder, 'config', 'filter.evil.clean', hook);
    refused(await readOnly('cd filter && git diff'), 'filter.evil.clean');
  });

  it('a pager (git given a terminal by script)', async () => {
    git(repository('pager'), 'config', 'core.pager', hook);
    refused(await readOnly("cd pager && script -qec 'git log' /dev/null"), 'core.pager');
  });

  it('a setting from a file the config includes', async () => {
    const folder = repository('include');
    writeFileSync(join(folder, '.git', 'extra.cfg'), `[core]\n\tfsmonitor = ${hook}\n`);
    git(folder, 'config', 'include.path', 'extra.cfg');
    refused(await readOnly('cd include && git status'), 'include.path');
  });

  it("a submodule's own config, read by the git that status starts in it", async () => {
    const library = repository('library-source');
    const superproject = repository('super');
    git(superproject, 'submodule', '-q', 'add', library, 'lib');
    git(superproject, 'commit', '-qm', 'submodule');
    git(join(superproject, 'lib'), 'config', 'core.fsmonitor', hook);
    writeFileSync(join(superproject, 'lib', 'a.txt'), 'changed\n');
    const result = await readOnly('cd super && git status');
    refused(result, 'core.fsmonitor');
    expect(result.stderr).toContain('lib');
  });

  it('settings passed in the environment, and git named by its exec path', async () => {
    repository('env');
    const pinned = `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=${hook}`;
    for (const command of [`cd env && ${pinned} git status`, `cd env && GIT_CONFIG_PARAMETERS="'core.fsmonitor=${hook}'" git status`]) {
      const result = await readOnly(command);
      expect(`${result.stdout}${result.stderr}`, command).not.toContain(HOOK_SAYS);
      expect(result.stdout, command).not.toContain(MARKER_SAYS);
    }
    const execPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
    git(join(sandbox.root, 'env'), 'config', 'core.fsmonitor', hook);
    refused(await readOnly(`cd env && ${execPath}/git status`), 'core.fsmonitor');
  });

  it('a config git cannot read, and an unknown setting, are refused too (deny by default)', async () => {
    const broken = repository('broken');
    writeFileSync(join(broken, '.git', 'config'), '[core\n\tbare = false\n');
    const unreadable = await env.execCommand('cd broken && git status', { read_only: true });
    expect(unreadable.stderr).toContain('toolgate: git was not run: its settings could not be read');
    expect(unreadable.exit_code).toBe(128);
    git(repository('unknown'), 'config', 'someday.newfeature', 'true');
    refused(await readOnly('cd unknown && git log'), 'someday.newfeature');
  });

  it('options that name other settings or repositories before the subcommand', async () => {
    repository('options');
    for (const option of ['-c core.fsmonitor=true', '-C ..', '--git-dir=.git', '--exec-path=/tmp', '-p']) {
      const result = await env.execCommand(`cd options && git ${option} status`, { read_only: true });
      expect(result.stderr, option).toContain(`toolgate: git was not run: under a read-only grant git takes no option before the subcommand`);
      expect(result.exit_code, option).toBe(128);
    }
  });
});

describe('everyday git keeps working under a read-only grant', () => {
  it('status, diff, log, show, branch, rev-parse, ls-files and blame in an ordinary clone', async () => {
    const origin = repository('origin-source', 'readme.md', 'hello\nworld\n');
    git(sandbox.root, 'clone', '-q', origin, 'clone');
    const clone = join(sandbox.root, 'clone');
    git(clone, 'config', 'user.name', 'Someone');
    git(clone, 'config', 'pull.rebase', 'true');
    git(clone, 'config', 'color.ui', 'auto');
    writeFileSync(join(clone, 'readme.md'), 'hello\nthere\n');
    writeFileSync(join(clone, 'new.txt'), 'new\n');
    const run = async (command: string) => {
      const result = await env.execCommand(`cd clone && ${command}`, { read_only: true });
      expect(result.stderr, command).toBe('');
      expect(result.exit_code, command).toBe(0);
      return result.stdout;
    };
    expect(await run('git status --short')).toBe(' M readme.md\n?? new.txt\n');
    expect(await run('git diff')).toContain('-world\n+there\n');
    expect(await run('git log --oneline')).toMatch(/^[0-9a-f]+ first\n$/);
    expect(await run('git --no-pager -P --no-optional-locks --literal-pathspecs log --oneline')).toMatch(/^[0-9a-f]+ first\n$/);
    expect(await run('git show --stat HEAD')).toContain('readme.md');
    expect(await run('git branch -a')).toContain('remotes/origin/main');
    expect(await run('git rev-parse --abbrev-ref HEAD')).toBe('main\n');
    expect(await run('git ls-files')).toBe('readme.md\n');
    expect(await run('git blame readme.md')).toContain('hello');
    // A submodule is checked in its own git too, and passes.
    const library = repository('plain-library');
    git(clone, 'submodule', '-q', 'add', library, 'lib');
    expect(await run('git status --short')).toBe('A  .gitmodules\nA  lib\n M readme.md\n?? new.txt\n');
  });

  it('a call that is not read-only runs git as it is (a human approved it)', async () => {
    const folder = repository('approved');
    git(folder, 'config', 'alias.hello', '!echo approved-alias');
    const result = await env.execCommand('cd approved && git hello');
    expect(result.stdout).toBe('approved-alias\n');
  });
});
