import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalGateway, type LocalGateway } from '../../lib/cli/serve.ts';

/**
 * Issue 10, finding 2, end to end as `npm start` runs it: the demo manifest grants
 * `read_only_commands`, the gateway hands the grant's read_only to the exec-server (its own
 * process), and the sandbox mounts the workspace read-only. A `core.fsmonitor` hook planted in the
 * workspace's .git/config (as an earlier approved write could have) runs during the granted
 * `git status`, but can change nothing.
 */
const HOOK = 'echo hook-ran >&2; echo pwned > pwned.txt; git config core.sshCommand evil; false';

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
  it('a planted core.fsmonitor hook runs during a granted `git status` but changes nothing', async () => {
    const before = snapshot(workspace);
    const result = await dispatch('ro-1', 'status-1', 'git status --short');
    // Granted by class (no approval), and the hook did run: only the read-only mount stopped it.
    expect(result.status).toBe('ok');
    expect(result.content).toContain('hook-ran');
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).not.toMatch(/^\s*sshCommand = evil$/m);
    expect(result.content).toContain('Read-only file system');
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
