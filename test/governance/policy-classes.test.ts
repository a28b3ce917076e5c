import { describe, expect, it } from 'vitest';
import { policyGovernor, type PolicyConfig } from '../../lib/governance/policy.ts';
import { defineTool } from '../../lib/registry/definition.ts';

const shell = defineTool({ name: 'shell', tier: 'execute' });
const deploy = defineTool({ name: 'deploy', tier: 'execute' });
const READ_ONLY = { class: 'read_only_commands' };

function decide(policy: PolicyConfig, command: unknown, definition = shell) {
  return policyGovernor(policy).decide({ definition, args: { command } as never, principal: 'agent' });
}

describe('policy rules that grant by class', () => {
  const policy: PolicyConfig = {
    execute: 'review',
    rules: [{ tool: 'shell', arguments: { command: READ_ONLY }, action: 'grant', description: 'read-only commands' }],
  };

  it('grants a read-only command and says it must run read-only', () => {
    expect(decide(policy, 'git status')).toEqual({ action: 'grant', reason: 'read-only commands', constraints: { read_only: true } });
    expect(decide(policy, 'ls -la && git diff --stat')).toMatchObject({ action: 'grant', constraints: { read_only: true } });
  });

  it.each([
    'git diff --no-index /etc/passwd /dev/null',
    'git log --output=x',
    'git -c core.fsmonitor=./evil status',
    'ls; rm -rf /',
    'ls $(rm x)',
    'ls\nrm x',
    'find . -delete',
  ])('falls through to the tier (a human decides): %s', (command) => {
    expect(decide(policy, command)).toEqual({ action: 'review', reason: 'policy for tier "execute" is review' });
  });

  it('a command that is not a string never matches', () => {
    expect(decide(policy, 42)).toMatchObject({ action: 'review' });
    expect(decide(policy, undefined)).toMatchObject({ action: 'review' });
    expect(decide(policy, ['ls'])).toMatchObject({ action: 'review' });
  });

  it('first matching rule still wins: a deny pattern before the class', () => {
    const ordered: PolicyConfig = { rules: [{ tool: 'shell', arguments: { command: 'git .*' }, action: 'deny' }, ...policy.rules!] };
    expect(decide(ordered, 'git status')).toMatchObject({ action: 'deny' });
    expect(decide(ordered, 'ls')).toMatchObject({ action: 'grant', constraints: { read_only: true } });
  });

  it('only a grant carries constraints; regex grants carry none', () => {
    const review: PolicyConfig = { execute: 'grant', rules: [{ tool: 'shell', arguments: { command: READ_ONLY }, action: 'review' }] };
    expect(decide(review, 'ls')).toEqual({ action: 'review', reason: 'policy rule 1 (shell) says review' });
    const regex: PolicyConfig = { rules: [{ tool: 'shell', arguments: { command: 'ls' }, action: 'grant' }] };
    expect(decide(regex, 'ls')).toEqual({ action: 'grant', reason: 'policy rule 1 (shell) says grant' });
  });

  it('a class and a pattern in one rule must both match', () => {
    const both: PolicyConfig = { rules: [{ tool: 'shell', arguments: { command: READ_ONLY, description: 'look.*' }, action: 'grant' }] };
    const run = (command: string, description: string) =>
      policyGovernor(both).decide({ definition: shell, args: { command, description }, principal: 'agent' });
    expect(run('ls', 'look around')).toMatchObject({ action: 'grant', constraints: { read_only: true } });
    expect(run('ls', 'delete it')).toMatchObject({ action: 'review' });
    expect(run('rm x', 'look around')).toMatchObject({ action: 'review' });
  });

  it('never matches off its tool or argument, or under an unknown name (deny by default, for library users the loader does not check)', () => {
    const anyTool: PolicyConfig = { rules: [{ tool: '*', arguments: { command: READ_ONLY }, action: 'grant' }] };
    expect(decide(anyTool, 'ls', deploy)).toMatchObject({ action: 'review' });
    expect(decide(anyTool, 'ls', shell)).toMatchObject({ action: 'review' });
    const otherArgument: PolicyConfig = { rules: [{ tool: 'shell', arguments: { description: READ_ONLY }, action: 'grant' }] };
    const described = policyGovernor(otherArgument).decide({ definition: shell, args: { command: 'rm -rf /', description: 'ls' }, principal: 'agent' });
    expect(described).toMatchObject({ action: 'review' });
    const unknown: PolicyConfig = { rules: [{ tool: 'shell', arguments: { command: { class: 'safe_commands' } }, action: 'grant' }] };
    expect(decide(unknown, 'ls')).toMatchObject({ action: 'review' });
  });
});
