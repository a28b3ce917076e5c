import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import type { ExecResult } from '../../lib/exec/environment.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { classifyCommand } from '../../lib/governance/shell/classify-command.ts';
import { bubblewrapSandbox, makeSandbox, type Sandbox } from '../exec/helpers.ts';

/**
 * Boundaries round 3, attacked: the read-only git guard lets `core.worktree` through (a
 * submodule's git dir under `.git/modules/<name>` needs it, as `../../../<name>`), and git reads
 * the work tree it names. With `core.worktree = /` and an index entry `etc/passwd`, a granted
 * `git diff` printed the sandbox's /etc/passwd, and `git status` and `git ls-files -o` listed
 * `/`: reads of the read-only class left the working directory. The guard now lets
 * core.worktree through only where the work tree git resolves from it (relative to the git dir,
 * symlinks resolved) lies inside the workspace.
 */
let commands: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: sandbox.base, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repository at `name` whose index holds `etc/passwd` (an empty blob), so git compares that path in its work tree. */
function repositoryTracking(name: string, path = 'etc/passwd'): string {
  const folder = join(sandbox.root, name);
  mkdirSync(folder, { recursive: true });
  git(folder, 'init', '-q', '-b', 'main');
  const blob = git(folder, 'hash-object', '-w', '--stdin').trim();
  git(folder, 'update-index', '--add', '--cacheinfo', `100644,${blob},${path}`);
  return folder;
}

function readOnly(command: string): Promise<ExecResult> {
  expect(classifyCommand(command), command).toEqual({ read_only: true });
  return env.execCommand(command, { read_only: true, timeout_ms: 20_000 });
}

/** Nothing of the sandbox's / reached the output, and the guard said why git did not run. */
function refused(result: ExecResult, command: string): void {
  const output = `${result.stdout}\n${result.stderr}`;
  expect(output, command).not.toMatch(/^\+root:/m);
  expect(output, command).not.toMatch(/\busr\/|\bproc\//);
  expect(output, command).toContain('toolgate: git was not run');
  expect(output, command).toContain('core.worktree');
  expect(output, command).toContain('outside the workspace');
  expect(result.exit_code, command).toBe(128);
}

beforeAll(async () => {
  commands = await bubblewrapSandbox();
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
}, 60_000);
afterAll(async () => {
  await commands?.close();
  await sandbox?.cleanup();
});

describe('attack: a granted git reads outside the workspace through core.worktree', () => {
  it('core.worktree = / (git diff would print /etc/passwd, git status and ls-files -o would list /)', async () => {
    git(repositoryTracking('root-tree'), 'config', 'core.worktree', '/');
    for (const command of ['cd root-tree && git diff', 'cd root-tree && git status --short', 'cd root-tree && git ls-files -o']) refused(await readOnly(command), command);
  });

  it('a relative core.worktree that climbs out of the workspace, and one through a symlink to /', async () => {
    const climbing = repositoryTracking('climbing');
    // From climbing/.git: climbing, the workspace, the scratch folder, then up to /.
    git(climbing, 'config', 'core.worktree', '../'.repeat(40));
    refused(await readOnly('cd climbing && git diff'), 'climbing');
    const linked = repositoryTracking('linked');
    symlinkSync('/', join(sandbox.root, 'to-root'));
    git(linked, 'config', 'core.worktree', '../../to-root');
    refused(await readOnly('cd linked && git diff'), 'linked');
  });

  it('core.worktree in the gitdir a nested repository points to', async () => {
    const nested = join(sandbox.root, 'vendor', 'sub');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q', '-b', 'main', `--separate-git-dir=${join(sandbox.root, 'vendor', 'elsewhere')}`);
    writeFileSync(join(nested, '.git'), 'gitdir: ../elsewhere\n');
    const blob = git(nested, 'hash-object', '-w', '--stdin').trim();
    git(nested, 'update-index', '--add', '--cacheinfo', `100644,${blob},etc/passwd`);
    git(nested, 'config', 'core.worktree', '/');
    refused(await readOnly('cd vendor/sub && git diff'), 'nested');
  });

  it('a work tree named in the environment or on the command line never reaches git', async () => {
    const folder = repositoryTracking('named');
    const fromEnvironment = await env.execCommand('cd named && GIT_WORK_TREE=/ git diff', { read_only: true });
    expect(fromEnvironment.stdout).not.toMatch(/^\+root:/m);
    expect(fromEnvironment.exit_code).toBe(0);
    const configured = await env.execCommand("cd named && GIT_CONFIG_PARAMETERS=\"'core.worktree=/'\" git diff", { read_only: true });
    expect(configured.stdout).not.toMatch(/^\+root:/m);
    for (const option of ['--work-tree=/', '--work-tree /']) {
      const result = await env.execCommand(`cd named && git ${option} diff`, { read_only: true });
      expect(result.stdout, option).not.toMatch(/^\+root:/m);
      expect(result.stderr, option).toContain('toolgate: git was not run: under a read-only grant git takes no option before the subcommand');
    }
    expect(git(folder, 'status', '--short')).toContain('etc/passwd');
  });
});

describe('a core.worktree inside the workspace keeps working', () => {
  it("a submodule's git dir under .git/modules names its work tree relatively (../../../lib)", async () => {
    const library = join(sandbox.root, 'library-source');
    mkdirSync(library);
    git(library, 'init', '-q', '-b', 'main');
    writeFileSync(join(library, 'a.txt'), 'one\n');
    git(library, 'add', '.');
    git(library, 'commit', '-qm', 'first');
    const superproject = join(sandbox.root, 'super');
    mkdirSync(superproject);
    git(superproject, 'init', '-q', '-b', 'main');
    git(superproject, 'submodule', '-q', 'add', library, 'lib');
    git(superproject, 'commit', '-qm', 'submodule');
    expect(git(join(superproject, '.git', 'modules', 'lib'), 'config', 'core.worktree').trim()).toBe('../../../lib');
    writeFileSync(join(superproject, 'lib', 'a.txt'), 'changed\n');
    const status = await readOnly('cd super && git status --short');
    expect(status.stderr).toBe('');
    expect(status.stdout).toBe(' m lib\n');
    const diff = await readOnly('cd super/lib && git diff');
    expect(diff.stderr).toBe('');
    expect(diff.stdout).toContain('-one\n+changed\n');
  });

  it('core.worktree naming another folder of the workspace, absolute or relative', async () => {
    const tree = join(sandbox.root, 'tree');
    mkdirSync(join(tree, 'etc'), { recursive: true });
    writeFileSync(join(tree, 'etc', 'passwd'), 'workspace copy\n');
    git(repositoryTracking('absolute'), 'config', 'core.worktree', tree);
    git(repositoryTracking('relative'), 'config', 'core.worktree', '../../tree');
    for (const name of ['absolute', 'relative']) {
      const result = await readOnly(`cd ${name} && git diff`);
      expect(result.stderr, name).toBe('');
      expect(result.stdout, name).toContain('+workspace copy\n');
    }
  });
});
