import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalGateway, type LocalGateway } from '../../lib/cli/serve.ts';

/**
 * Issue 10, finding 2, and issue 22, finding 8, end to end as `npm start` runs it: the demo
 * manifest grants `read_only_commands`, the gateway hands the grant's read_only to the
 * exec-server (its own process), and the sandbox mounts the workspace read-only. A
 * `core.fsmonitor` hook planted in the workspace's .git/config (as an earlier approved write
 * could have), or in the gitdir a nested repository's `.git` file points to, does not run during
 * the granted `git status`: git under a read-only grant refuses settings that can name programs.
 */
const HOOK = 'echo hook-ran; echo hook-ran >&2; echo pwned > pwned.txt; git config core.sshCommand evil; false';

let scratch: string;
let workspace: string;
let gateway: LocalGateway;

/** Every file under a folder with its bytes, so "unchanged" means unchanged. */
function snapshot(folder: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) Object.assign(files, snapshot(path, `${prefix}${name}/`));
    else files[`${prefix}${name}`] = readFileSync(path, 'base64');
  }
  return files;
}

async function dispatch(thread: string, call_id: string, command: string) {
  const response = await fetch(`${gateway.url}/v1/dispatch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.demoKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ thread_id: thread, calls: [{ call_id, name: 'shell', arguments: { command } }] }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: Array<{ status: string; content: string }> };
  return body.results[0];
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolgate-readonly-'));
  workspace = join(scratch, 'workspace');
  execFileSync('mkdir', [workspace]);
  writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: workspace, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  git('config', 'core.fsmonitor', HOOK);
  // vendor/sub/.git is a file saying `gitdir: ../evil`, whose config names the hook.
  const sub = join(workspace, 'vendor', 'sub');
  execFileSync('mkdir', ['-p', sub]);
  const subGit = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: sub, stdio: 'pipe' });
  subGit('init', '-q', `--separate-git-dir=${join(workspace, 'vendor', 'evil')}`);
  writeFileSync(join(sub, '.git'), 'gitdir: ../evil\n');
  subGit('commit', '-q', '--allow-empty', '-m', 'first');
  subGit('config', 'core.fsmonitor', HOOK);
  gateway = await startLocalGateway({
    port: 0,
    dataDir: join(scratch, '.toolgate'),
    quiet: true,
    env: { PATH: process.env.PATH, TOOLGATE_WORKSPACE: workspace, TOOLGATE_EXEC_PORT: '0' },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a read_only_commands grant runs read-only, end to end', () => {
  it('a planted core.fsmonitor hook never runs during a granted `git status`, here or in a nested repository', async () => {
    const before = snapshot(workspace);
    for (const [call_id, command, config] of [
      ['status-1', 'git status --short', '.git/config'],
      ['status-2', 'cd vendor/sub && git status', 'vendor/evil/config'],
    ]) {
      const result = await dispatch('ro-1', call_id, command);
      // Granted by class (no approval), and refused by git's guard, naming the setting and its file.
      expect(result.status, command).toBe('ok');
      expect(result.content, command).not.toContain('hook-ran');
      expect(result.content, command).toContain('toolgate: git was not run: the local setting core.fsmonitor');
      expect(result.content, command).toContain(config);
    }
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
    expect(snapshot(workspace)).toEqual(before);
  });

  it('the bypasses of the old regex grant wait for a human, with nothing run', async () => {
    const before = snapshot(workspace);
    for (const [call_id, command] of [
      ['nx-1', 'git diff --no-index /etc/passwd /dev/null'],
      ['out-1', 'git log --output=written.txt'],
      ['cfg-1', 'git -c core.fsmonitor="touch pwned.txt" status'],
    ]) {
      const result = await dispatch('ro-2', call_id, command);
      expect(result.status, command).toBe('pending_approval');
    }
    expect(snapshot(workspace)).toEqual(before);
  });

  it("issue 22: the classifier's holes wait for a human instead of running (tail that follows forever, files outside, --pre)", async () => {
    const before = snapshot(workspace);
    for (const [call_id, command] of [
      ['tail-1', 'tail +1f notes.txt'], // obsolete +N[f]: follows forever, held an exec-server slot
      ['tail-2', 'tail +0f -- notes.txt'],
      ['tail-3', 'tail -cf notes.txt'], // not -c "f": follows forever
      ['find-1', 'find . -newermm /etc/shadow'], // -newerXY with Y other than t reads a file
      ['rg-1', 'rg -f=/etc/passwd x'], // clap drops the "=": reads /etc/passwd
      ['rg-2', 'rg --engine --pre=./notes.txt x'], // --engine takes no word starting with "-": --pre runs
      ['git-1', 'git ls-files -x -- --exclude-from=/etc/passwd'], // -x takes "--": --exclude-from reads the file
    ]) {
      const result = await dispatch('ro-3', call_id, command);
      expect(result.status, command).toBe('pending_approval');
    }
    expect(snapshot(workspace)).toEqual(before);
  });
});
