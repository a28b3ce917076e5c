import { describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { policyGovernor } from '../../lib/governance/policy.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { shellTool } from '../../lib/tools/coding/shell.ts';
import { MemoryEnvironment } from '../helpers/memory-environment.ts';

/** The shell tool over a recording environment, governed by a read_only_commands grant (execute otherwise reviews). */
function setup() {
  const environment = new MemoryEnvironment();
  environment.script = (command) => ({ stdout: `ran ${command}\n` });
  const governor = policyGovernor({
    execute: 'review',
    rules: [
      { tool: 'shell', arguments: { command: { class: 'read_only_commands' } }, action: 'grant' },
      { tool: 'shell', arguments: { command: 'make( .*)?' }, action: 'grant' },
    ],
  });
  const router = new ToolRouter(undefined, 5000, { governor, store: new MemoryStore() });
  router.register(shellTool(environment));
  const context = { tenant: 'acme', principal: 'agent-1', thread_id: 't1' };
  const shell = (call_id: string, command: string) => router.execute({ call_id, name: 'shell', arguments: { command } }, context);
  return { environment, router, shell };
}

describe('shell grants by class through the pipeline', () => {
  it('a granted read-only command reaches the environment with read_only: true', async () => {
    const { environment, shell } = setup();
    const result = await shell('c1', 'git status && git diff --stat');
    expect(result).toMatchObject({ status: 'ok', content: expect.stringContaining('ran git status && git diff --stat') });
    expect(environment.commands).toEqual([{ command: 'git status && git diff --stat', options: { timeout_ms: 10_000, read_only: true } }]);
  });

  it.each([
    'git diff --no-index /etc/passwd /dev/null',
    'git log --output=pwned.txt',
    'git -c core.pager=sh status',
    'ls; rm -rf /',
    'ls $(rm x)',
    'ls `id`',
    'ls > f',
    'ls\nrm x',
    'find . -delete',
    'sed -i s/a/b/ f',
    'FOO=1 ls',
  ])('an unsafe or unclear command parks for a human, and nothing runs: %j', async (command) => {
    const { environment, shell } = setup();
    const result = await shell('c1', command);
    expect(result).toMatchObject({ status: 'pending_approval', error: { code: 'pending_approval' } });
    expect(environment.commands).toEqual([]);
  });

  it('a human-approved command runs without read_only, once', async () => {
    const { environment, router, shell } = setup();
    const parked = await shell('c2', 'git log --output=notes.txt');
    const approved = await router.submitApproval(String(parked.error!.details!.approval_id), { decision: 'approve', approver: 'alice' });
    expect(approved).toMatchObject({ ok: true, result: { status: 'ok' } });
    expect(environment.commands).toEqual([{ command: 'git log --output=notes.txt', options: { timeout_ms: 10_000 } }]);
  });

  it('a grant by a regular expression carries no read-only constraint', async () => {
    const { environment, shell } = setup();
    expect(await shell('c3', 'make test')).toMatchObject({ status: 'ok' });
    expect(environment.commands).toEqual([{ command: 'make test', options: { timeout_ms: 10_000 } }]);
  });
});
