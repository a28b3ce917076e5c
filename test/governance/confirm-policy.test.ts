import { describe, expect, it } from 'vitest';
import type { Approval } from '../../lib/governance/approval.ts';
import { decideApproval, saveNewApproval } from '../../lib/governance/approvals.ts';
import { policyGovernor } from '../../lib/governance/policy.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, loaderOptions, validManifest } from '../helpers/manifests.ts';
import { startFakeSlack } from '../support/fake-slack.ts';

/**
 * The policy's `confirm` action (issue 23, item 3): a call parked until its own requester confirms
 * it. Decided by the policy (rules, tiers, a tool's `approval: "confirm"`), checked at publish,
 * and decided by the requester alone (as four-eyes tells people apart), never by anyone else's
 * approval; anyone who decides approvals may still reject it.
 */

const note = defineTool({ name: 'save_note', tier: 'write' });
const shell = defineTool({ name: 'shell', tier: 'execute' });
const search = defineTool({ name: 'search', tier: 'read' });

describe('the policy says confirm', () => {
  it('by a rule, by a tier, and by a tool\'s approval (where a rule that denies or asks for review still decides)', () => {
    const governor = policyGovernor(
      {
        read: 'grant',
        write: 'confirm',
        execute: 'deny',
        rules: [
          { tool: 'shell', arguments: { command: 'rm .*' }, action: 'deny' },
          { tool: 'shell', arguments: { command: 'deploy.*' }, action: 'review' },
          { tool: 'shell', arguments: { command: 'ls.*' }, action: 'grant' },
          { tool: 'search', arguments: { query: 'secret.*' }, action: 'confirm', description: 'secret searches are confirmed' },
        ],
      },
      new Map([['shell', 'confirm' as const]]),
      { default: 3 },
    );
    const decide = (definition: ReturnType<typeof defineTool>, args: Record<string, unknown>) => governor.decide({ definition, args: args as never, principal: 'p' });
    expect(decide(note, { text: 'x' })).toEqual({ action: 'confirm', reason: 'policy for tier "write" is confirm' });
    expect(decide(search, { query: 'secret plans' })).toEqual({ action: 'confirm', reason: 'secret searches are confirmed' });
    expect(decide(search, { query: 'weather' })).toMatchObject({ action: 'grant' });
    // approval: "confirm" replaces the deny tier and turns a grant rule into confirm; a deny or review rule stands (with its quorum).
    expect(decide(shell, { command: 'make' })).toEqual({ action: 'confirm', reason: 'tool "shell" needs its caller\'s confirmation' });
    expect(decide(shell, { command: 'ls -la' })).toMatchObject({ action: 'confirm' });
    expect(decide(shell, { command: 'rm -rf /' })).toMatchObject({ action: 'deny' });
    expect(decide(shell, { command: 'deploy prod' })).toMatchObject({ action: 'review', quorum: 3 });
    // A confirm carries no quorum, whatever the tenant's default.
    expect(decide(note, { text: 'x' })).not.toHaveProperty('quorum');
  });

  it('tools whose calls can be confirmed can be parked (MCP looks their twins up, 2025-11-25 lists them with taskSupport)', () => {
    const governor = policyGovernor({ read: 'grant', write: 'grant', execute: 'grant', rules: [{ tool: 'search', action: 'confirm' }] }, new Map([['shell', 'confirm' as const]]));
    expect(governor.mayReview!(search)).toBe(true);
    expect(governor.mayReview!(shell)).toBe(true);
    expect(governor.mayReview!(note)).toBe(false);
    expect(policyGovernor({ write: 'confirm' }).mayReview!(note)).toBe(true);
  });

  it('is checked at publish: accepted in tiers, rules and a tool\'s approval; a confirm rule asking for approvers is refused', () => {
    const problemsOf = (value: unknown) => {
      const result = loadManifest(value, loaderOptions());
      return result.ok ? [] : result.problems;
    };
    const tool = { name: 'ship', tier: 'write', executor: { kind: 'builtin', name: 'echo' } };
    expect(problemsOf(baseManifest({ policy: { write: 'confirm', rules: [{ tool: 'ship', action: 'confirm' }] }, tools: [{ ...tool, approval: 'confirm' }] }))).toEqual([]);
    expect(problemsOf(baseManifest({ policy: { rules: [{ tool: 'ship', action: 'confirm', approvals: { quorum: 2 } }] }, tools: [tool] }))).toEqual([
      { path: '$.policy.rules[0].approvals', message: 'only a "review" rule can ask for approvers (this rule\'s action is "confirm", which the calling user alone decides); remove it or make the rule review' },
    ]);
    expect(problemsOf(baseManifest({ tools: [{ ...tool, approval: 'confirmed' }] }))).toEqual([{ path: '$.tools[0].approval', message: 'must be one of "always", "never", "confirm", "policy", got "confirmed"' }]);
  });
});

describe('who decides a confirm approval', () => {
  const approval = (extra: Partial<Approval> = {}): Approval => ({
    id: `apr_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`,
    tenant: 'acme',
    thread_id: 't',
    call_id: 'c',
    tool: 'save_note',
    tier: 'write',
    call_key: 'k',
    arguments: {},
    args_hash: 'h',
    requested_by: 'ide-agent',
    requested_by_lineage: ['dev'],
    kind: 'confirm',
    reason: 'confirm',
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 60_000).toISOString(),
    state: 'pending',
    quorum: 1,
    decisions: [],
    ...extra,
  });
  const decideOn = async (parked: Approval, by: string, decision: 'approve' | 'reject' = 'approve', lineage?: string[]) => {
    const store = new MemoryStore();
    await saveNewApproval(store, parked);
    return decideApproval(store, parked.id, { decision, by, via: 'console', ...(lineage ? { lineage } : {}) });
  };

  it('the requester, under any spelling of its name, or the key that minted its key: approved at once, recorded via confirm', async () => {
    for (const [by, lineage] of [['ide-agent', undefined], ['IDE-Agent ', undefined], ['dev', undefined], ['helper', ['ide-agent']]] as const) {
      const outcome = await decideOn(approval(), by, 'approve', lineage ? [...lineage] : undefined);
      expect(outcome, by).toMatchObject({ ok: true, approval: { state: 'approved', decided_by: by, decided_via: 'confirm', decisions: [{ decision: 'approve', via: 'confirm' }] } });
    }
  });

  it('anyone else cannot approve it (not even a sibling key unless the tenant counts siblings as one person), but may reject it', async () => {
    expect(await decideOn(approval(), 'alice')).toMatchObject({ ok: false, reason: 'not_requester' });
    expect(await decideOn(approval(), 'sibling', 'approve', ['dev'])).toMatchObject({ ok: false, reason: 'not_requester' });
    expect(await decideOn(approval({ four_eyes: { same_person_as_creator: true } }), 'sibling', 'approve', ['dev'])).toMatchObject({ ok: true, approval: { state: 'approved', decided_via: 'confirm' } });
    expect(await decideOn(approval({ four_eyes: { same_person_as_creator: false } }), 'dev')).toMatchObject({ ok: false, reason: 'not_requester' });
    expect(await decideOn(approval(), 'alice', 'reject')).toMatchObject({ ok: true, approval: { state: 'rejected', decided_by: 'alice', decided_via: 'console' } });
  });

  it('a review approval is unchanged: its requester cannot approve it', async () => {
    expect(await decideOn(approval({ kind: undefined }), 'ide-agent')).toMatchObject({ ok: false, reason: 'self_approval' });
    expect(await decideOn(approval({ kind: undefined }), 'dev')).toMatchObject({ ok: false, reason: 'self_approval' });
  });

  it('a confirm call is parked with quorum 1 whatever the tenant asks of reviews, and no Slack request or reminder goes out', async () => {
    const slack = await startFakeSlack();
    try {
      const manifest = validManifest({
        tenant: 'acme',
        policy: { write: 'confirm', execute: 'review' },
        approvals: { slack_channel: 'C0APPROVALS', quorum: 3, remind_before_seconds: 60, ttl_seconds: 600 },
        tools: [{ name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }, { name: 'deploy', tier: 'execute', executor: { kind: 'builtin', name: 'echo' } }],
      });
      const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:read'] } }, { env: { SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.url } });
      const park = async (name: string) => {
        const body = (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: name, name, arguments: { text: 'x' } }] } })).json()) as { results: Array<{ error: { details: { approval_id: string } } }> };
        return (await (await gw.request(`/v1/approvals/${body.results[0].error.details.approval_id}`, { key: 'alice' })).json()) as Approval & { progress: { quorum: number } };
      };
      const confirm = await park('save_note');
      expect(confirm).toMatchObject({ kind: 'confirm', quorum: 1, progress: { quorum: 1 } });
      expect(confirm).not.toHaveProperty('remind_at');
      expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(0);
      expect(await park('deploy')).toMatchObject({ quorum: 3, remind_at: expect.any(String) });
      expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
    } finally {
      await slack.close();
    }
  });
});
