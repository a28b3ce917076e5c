import { describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { DEFAULT_GRANTED_TIMEOUT_MS, policyGovernor } from '../../lib/governance/policy.ts';
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
    expect(environment.commands).toEqual([{ command: 'git status && git diff --stat', options: { timeout_ms: 10_000, read_only: true, signal: expect.any(AbortSignal) } }]);
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
    'tail +1f greet.sh',
    'tail +0f -- greet.sh',
    'find . -newermm /etc/shadow',
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
    expect(environment.commands).toEqual([{ command: 'git log --output=notes.txt', options: { timeout_ms: 10_000, signal: expect.any(AbortSignal) } }]);
  });

  it('a grant by a regular expression carries no read-only constraint', async () => {
    const { environment, shell } = setup();
    expect(await shell('c3', 'make test')).toMatchObject({ status: 'ok' });
    expect(environment.commands).toEqual([{ command: 'make test', options: { timeout_ms: 10_000, signal: expect.any(AbortSignal) } }]);
  });

  it('a granted command runs at most 30 s whatever timeout_ms asks (tier grants too); a human-approved one keeps the timeout_ms it asked for', async () => {
    const { environment, router, shell } = setup();
    const call = (call_id: string, command: string) => router.execute({ call_id, name: 'shell', arguments: { command, timeout_ms: 600_000 } }, { tenant: 'acme', principal: 'agent-1', thread_id: 't1' });
    await call('g1', 'make test');
    await call('g2', 'git status');
    const parked = await call('h1', 'rm -rf build');
    await router.submitApproval(String(parked.error!.details!.approval_id), { decision: 'approve', approver: 'alice' });
    const tier = new ToolRouter(undefined, 5000, { governor: policyGovernor({ execute: 'grant' }) });
    tier.register(shellTool(environment));
    await tier.execute({ call_id: 't1', name: 'shell', arguments: { command: 'make', timeout_ms: 600_000 } });
    expect(environment.commands.map((entry) => [entry.command, entry.options.timeout_ms])).toEqual([
      ['make test', DEFAULT_GRANTED_TIMEOUT_MS],
      ['git status', DEFAULT_GRANTED_TIMEOUT_MS],
      ['rm -rf build', 600_000],
      ['make', DEFAULT_GRANTED_TIMEOUT_MS],
    ]);
    expect(DEFAULT_GRANTED_TIMEOUT_MS).toBe(30_000);
  });
});
