import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';
import { testGateway } from '../helpers/gateway.ts';

const problemsOf = (value: unknown) => {
  const result = loadManifest(value, loaderOptions());
  return result.ok ? [] : result.problems;
};

const tool = (extra: Record<string, unknown> = {}) => ({ name: 'ship', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, ...extra });

describe('approval settings in a manifest', () => {
  it('accepts quorums of 1 to 10 on the tenant, a tool and a review rule, with a reminder and an escalation channel', () => {
    const manifest = baseManifest({
      approvals: { quorum: 2, ttl_seconds: 3600, remind_before_seconds: 600, escalation_channel: 'C0ESC', slack_principals: { U0ALICE: 'alice' } },
      policy: { rules: [{ tool: 'ship', action: 'review', approvals: { quorum: 10 } }] },
      tools: [tool({ approvals: { quorum: 1 } })],
    });
    expect(problemsOf(manifest)).toEqual([]);
  });

  it('refuses quorums out of bounds, at their JSON paths', () => {
    const manifest = baseManifest({
      approvals: { quorum: 0 },
      policy: { rules: [{ tool: 'ship', action: 'review', approvals: { quorum: 11 } }] },
      tools: [tool({ approvals: { quorum: 2.5 } }), tool({ name: 'other', approvals: { quorum: '2', extra: true } })],
    });
    const problems = problemsOf(manifest);
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['$.approvals.quorum', '$.policy.rules[0].approvals.quorum', '$.tools[0].approvals.quorum', '$.tools[1].approvals.quorum', '$.tools[1].approvals.extra']));
    expect(problems.find((p) => p.path === '$.approvals.quorum')?.message).toMatch(/1/);
    expect(problems.find((p) => p.path === '$.policy.rules[0].approvals.quorum')?.message).toMatch(/10/);
  });

  it('refuses settings that cannot work together', () => {
    const manifest = baseManifest({
      approvals: { ttl_seconds: 600, remind_before_seconds: 600 },
      policy: { rules: [{ tool: 'ship', action: 'grant', approvals: { quorum: 2 } }] },
      tools: [tool({ approval: 'never', approvals: { quorum: 2 } })],
    });
    expect(problemsOf(manifest)).toEqual([
      { path: '$.approvals.remind_before_seconds', message: 'must be less than ttl_seconds (600): the reminder goes out that long before the approval expires' },
      { path: '$.policy.rules[0].approvals', message: 'only a "review" rule can ask for approvers (this rule\'s action is "grant"); remove it or make the rule review' },
      { path: '$.tools[0].approvals', message: 'has no effect: the tool\'s approval is "never", so no call of it waits for approvers; remove one of the two' },
    ]);
    expect(problemsOf(baseManifest({ approvals: { escalation_channel: 'C0ESC' } }))).toEqual([{ path: '$.approvals.escalation_channel', message: 'needs remind_before_seconds: the escalation is posted with the reminder' }]);
    expect(problemsOf(baseManifest({ approvals: { remind_before_seconds: 3600 } }))).toEqual([{ path: '$.approvals.remind_before_seconds', message: 'must be less than ttl_seconds (3600, the default): the reminder goes out that long before the approval expires' }]);
  });

  it('publishing a manifest with a quorum out of bounds answers the problems and leaves the active version in place', async () => {
    const gw = await testGateway([baseManifest({ tenant: 'acme', version: '1', tools: [tool()] })], { admin: { tenant: 'acme', principal: 'root', scopes: ['admin'] } });
    const bad = baseManifest({ tenant: 'acme', version: '2', tools: [tool({ approvals: { quorum: 50 } })] });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: bad });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(JSON.stringify(body)).toContain('$.tools[0].approvals.quorum');
    expect((await gw.tenants.runtime('acme'))?.manifest.version).toBe('1');
  });
});
