import { describe, expect, it } from 'vitest';
import { grantedExecution } from '../../lib/dispatch/stages/govern.ts';
import { DEFAULT_GRANTED_TIMEOUT_MS, policyGovernor, type GovernanceDecision } from '../../lib/governance/policy.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const problemsOf = (value: unknown, options = loaderOptions()) => {
  const result = loadManifest(value, options);
  return result.ok ? [] : result.problems;
};
const withRules = (rules: unknown[]) => baseManifest({ policy: { execute: 'review', rules } as never });

describe("a grant rule's max_timeout_ms (issue 22, finding 2)", () => {
  it('is accepted on a grant rule, from 1 to 600000 ms (both validator engines)', () => {
    const manifest = withRules([{ tool: 'shell', arguments: { command: 'make( test)?' }, action: 'grant', max_timeout_ms: 600_000 }, { tool: '*', action: 'grant', max_timeout_ms: 1 }]);
    expect(problemsOf(manifest)).toEqual([]);
    expect(problemsOf(manifest, loaderOptions({ validator: createCfworkerValidator() }))).toEqual([]);
  });

  it('is refused at publish beyond the bounds, or on a rule that grants nothing', () => {
    expect(problemsOf(withRules([{ tool: 'shell', action: 'grant', max_timeout_ms: 600_001 }]))).toEqual([{ path: '$.policy.rules[0].max_timeout_ms', message: expect.stringMatching(/600000/) }]);
    expect(problemsOf(withRules([{ tool: 'shell', action: 'grant', max_timeout_ms: 0 }]))).toEqual([{ path: '$.policy.rules[0].max_timeout_ms', message: expect.any(String) }]);
    expect(problemsOf(withRules([{ tool: 'shell', action: 'grant', max_timeout_ms: 1.5 }]))).toHaveLength(1);
    expect(problemsOf(withRules([{ tool: 'shell', action: 'review', max_timeout_ms: 5_000 }]))).toEqual([
      { path: '$.policy.rules[0].max_timeout_ms', message: 'only limits the calls a "grant" rule grants; this rule says "review" (a call a human approved keeps the tool\'s own maximum): remove it, or put it on the grant rule' },
    ]);
  });

  it('every grant without a human runs at most the granting rule\'s limit, else 30 s: rules, the tier, approval "never"; a review sets none', () => {
    const shell = defineTool({ name: 'shell', tier: 'execute' });
    const governor = policyGovernor({ execute: 'grant', rules: [{ tool: 'shell', arguments: { command: 'make' }, action: 'grant', max_timeout_ms: 120_000 }, { tool: 'shell', arguments: { command: 'rm .*' }, action: 'review' }] });
    const limitFor = (command: string, decider = governor) => grantedExecution(decider.decide({ definition: shell, args: { command }, principal: 'p' }) as Exclude<GovernanceDecision, { action: 'deny' }>);
    expect(limitFor('make')).toEqual({ max_timeout_ms: 120_000 });
    expect(limitFor('ls')).toEqual({ max_timeout_ms: DEFAULT_GRANTED_TIMEOUT_MS });
    expect(limitFor('rm -rf x')).toEqual({});
    const never = policyGovernor({ execute: 'review' }, new Map([['shell', 'never' as const]]));
    expect(limitFor('anything', never)).toEqual({ max_timeout_ms: DEFAULT_GRANTED_TIMEOUT_MS });
    const byClass = policyGovernor({ rules: [{ tool: 'shell', arguments: { command: { class: 'read_only_commands' } }, action: 'grant', max_timeout_ms: 5_000 }] });
    expect(limitFor('git status', byClass)).toEqual({ read_only: true, max_timeout_ms: 5_000 });
    expect(DEFAULT_GRANTED_TIMEOUT_MS).toBe(30_000);
  });
});
