import { describe, expect, it, vi } from 'vitest';
import { AutoApprove, governorFromHandler, RejectAll, TierPolicy } from '../../lib/governance/handlers.ts';
import { policyGovernor, type GovernanceDecision } from '../../lib/governance/policy.ts';
import { defineTool } from '../../lib/registry/definition.ts';

const shell = defineTool({ name: 'shell', tier: 'execute' });
const read = defineTool({ name: 'read_file', tier: 'read' });
const write = defineTool({ name: 'write_file', tier: 'write' });

describe('policy governor', () => {
  const governor = policyGovernor(
    {
      read: 'grant',
      write: 'review',
      execute: 'deny',
      rules: [
        { tool: 'shell', arguments: { command: '(ls|pwd|git (status|diff|log))( [^;&|`$<>]*)?' }, action: 'grant', description: 'read-only shell commands' },
        { tool: 'shell', arguments: { command: 'rm .*' }, action: 'deny' },
        { tool: 'shell', action: 'review' },
        { tool: '*', arguments: { file_path: 'docs/.*' }, action: 'grant' },
      ],
    },
    new Map([['read_file', 'always' as const]]),
  );
  const decide = (definition: ReturnType<typeof defineTool>, args: Record<string, unknown>) => governor.decide({ definition, args: args as never, principal: 'p' });

  it('first matching rule wins; patterns must match the whole value', () => {
    expect(decide(shell, { command: 'git status' })).toEqual({ action: 'grant', reason: 'read-only shell commands' });
    expect(decide(shell, { command: 'ls -la' })).toMatchObject({ action: 'grant' });
    expect(decide(shell, { command: 'ls; rm -rf ~' })).toMatchObject({ action: 'review', reason: 'policy rule 3 (shell) says review' });
    expect(decide(shell, { command: 'rm -rf build' })).toMatchObject({ action: 'deny', reason: 'policy rule 2 (shell) says deny' });
    expect(decide(shell, { command: 'make' })).toMatchObject({ action: 'review' });
  });

  it('rules apply to any tool with "*", and fall through to the tier action', () => {
    expect(decide(write, { file_path: 'docs/intro.md' })).toMatchObject({ action: 'grant' });
    expect(decide(write, { file_path: 'src/app.ts' })).toEqual({ action: 'review', reason: 'policy for tier "write" is review' });
  });

  it('says which tools can ever be parked: a review rule for the tool (or any tool), a review tier, an `always` override; never with `never`', () => {
    expect(governor.mayReview!(shell)).toBe(true); // rule 3, whatever the deny tier
    expect(governor.mayReview!(write)).toBe(true); // the tier
    expect(governor.mayReview!(read)).toBe(true); // approval: always
    expect(governor.mayReview!(defineTool({ name: 'search', tier: 'read' }))).toBe(false);
    const strict = policyGovernor({ read: 'grant', write: 'grant', rules: [{ tool: '*', arguments: { path: 'secrets/.*' }, action: 'review' }] }, new Map([['deploy', 'never' as const]]));
    expect(strict.mayReview!(defineTool({ name: 'search', tier: 'read' }))).toBe(true);
    expect(strict.mayReview!(defineTool({ name: 'deploy', tier: 'write' }))).toBe(false);
  });

  it("a tool's own approval setting comes first", () => {
    expect(decide(read, { file_path: 'docs/a.md' })).toEqual({ action: 'review', reason: 'tool "read_file" always needs approval' });
    const never = policyGovernor({ execute: 'deny' }, new Map([['shell', 'never' as const]]));
    expect(never.decide({ definition: shell, args: { command: 'x' }, principal: 'p' })).toMatchObject({ action: 'grant' });
  });

  it('a value no pattern can judge never satisfies a grant and always satisfies a deny (attack: a list past a deny rule)', () => {
    const fetcher = defineTool({ name: 'fetch_url', tier: 'write' });
    const rules = policyGovernor({
      write: 'grant',
      rules: [
        { tool: 'fetch_url', arguments: { url: 'https?://(169\\.254|127\\.|10\\.).*' }, action: 'deny' },
        { tool: 'fetch_url', arguments: { amount: '\\d{7,}' }, action: 'deny' },
        { tool: 'fetch_url', arguments: { url: 'https://docs\\..*' }, action: 'grant' },
      ],
    });
    const on = (args: Record<string, unknown>) => (rules.decide({ definition: fetcher, args: args as never, principal: 'p' }) as GovernanceDecision).action;
    expect(on({ url: 'http://169.254.169.254/latest' })).toBe('deny');
    expect(on({ url: ['http://169.254.169.254/latest'] })).toBe('deny');
    expect(on({ url: { href: 'http://169.254.169.254/latest' } })).toBe('deny');
    expect(on({ url: null })).toBe('deny');
    // Numbers are matched as their digits, never in exponent form.
    expect(on({ url: 'https://example.com', amount: 1e21 })).toBe('deny');
    expect(on({ url: 'https://example.com', amount: 12 })).toBe('grant');
    // A grant rule is never satisfied by what it cannot judge; absent arguments satisfy no rule.
    const granted = policyGovernor({ write: 'review', rules: [{ tool: 'fetch_url', arguments: { url: 'https://docs\\..*' }, action: 'grant' }] });
    const grantOn = (args: Record<string, unknown>) => (granted.decide({ definition: fetcher, args: args as never, principal: 'p' }) as GovernanceDecision).action;
    expect(grantOn({ url: 'https://docs.example.com' })).toBe('grant');
    expect(grantOn({ url: ['https://docs.example.com'] })).toBe('review');
    expect(grantOn({})).toBe('review');
  });

  it('denies side effects by default and grants reads', () => {
    const defaults = policyGovernor();
    expect(defaults.decide({ definition: read, args: {}, principal: 'p' })).toMatchObject({ action: 'grant' });
    expect(defaults.decide({ definition: write, args: {}, principal: 'p' })).toMatchObject({ action: 'review' });
    expect(defaults.decide({ definition: shell, args: {}, principal: 'p' })).toMatchObject({ action: 'review' });
  });
});

describe('approval handlers (the seed)', () => {
  it('AutoApprove grants everything and logs a warning every time', async () => {
    const log = vi.fn();
    const governor = governorFromHandler(new AutoApprove(log));
    expect(await governor.decide({ definition: shell, args: {}, principal: 'p' })).toMatchObject({ action: 'grant' });
    await governor.decide({ definition: write, args: {}, principal: 'p' });
    expect(log).toHaveBeenCalledTimes(2);
    expect(log.mock.calls[0][0]).toBe('governance.auto_approve');
  });

  it('RejectAll rejects; TierPolicy grants reads and defers the rest', async () => {
    expect(await governorFromHandler(new RejectAll()).decide({ definition: read, args: {}, principal: 'p' })).toMatchObject({ action: 'deny' });
    const tiers = governorFromHandler(new TierPolicy());
    expect(await tiers.decide({ definition: read, args: {}, principal: 'p' })).toMatchObject({ action: 'grant' });
    expect(await tiers.decide({ definition: write, args: {}, principal: 'p' })).toMatchObject({ action: 'review' });
  });

  it('a custom handler can defer with its own request id', async () => {
    const governor = governorFromHandler({ approve: () => ({ kind: 'deferred', request_id: 'ticket-42' }) });
    expect(await governor.decide({ definition: write, args: {}, principal: 'p' })).toEqual({ action: 'review', reason: 'deferred to a human by the approval handler', request_id: 'ticket-42' });
  });
});
