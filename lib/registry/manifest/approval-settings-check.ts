import { DEFAULT_APPROVAL_TTL_SECONDS } from '../../governance/approvals.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';

/**
 * What the schema cannot say about approval settings (it bounds each number on its own): a
 * reminder must come before expiry, an escalation needs a reminder to go with, and a quorum
 * only means something where other people review (a `confirm` is its caller's alone).
 */
export function checkApprovalSettings(manifest: JsonObject): ManifestProblem[] {
  return [...checkTenantSettings(manifest.approvals), ...checkRuleQuorums(manifest.policy), ...checkToolQuorums(manifest.tools)];
}

function checkTenantSettings(approvals: unknown): ManifestProblem[] {
  if (!isJsonObject(approvals)) return [];
  const problems: ManifestProblem[] = [];
  const ttl = typeof approvals.ttl_seconds === 'number' ? approvals.ttl_seconds : DEFAULT_APPROVAL_TTL_SECONDS;
  const remind = approvals.remind_before_seconds;
  if (typeof remind === 'number' && remind >= ttl) {
    problems.push({ path: '$.approvals.remind_before_seconds', message: `must be less than ttl_seconds (${ttl}${approvals.ttl_seconds === undefined ? ', the default' : ''}): the reminder goes out that long before the approval expires` });
  }
  if (approvals.escalation_channel !== undefined && remind === undefined) {
    problems.push({ path: '$.approvals.escalation_channel', message: 'needs remind_before_seconds: the escalation is posted with the reminder' });
  }
  return problems;
}

function checkRuleQuorums(policy: unknown): ManifestProblem[] {
  if (!isJsonObject(policy) || !Array.isArray(policy.rules)) return [];
  return policy.rules.flatMap((rule, index) =>
    isJsonObject(rule) && rule.approvals !== undefined && rule.action !== 'review'
      ? [{ path: `$.policy.rules[${index}].approvals`, message: `only a "review" rule can ask for approvers (this rule's action is ${JSON.stringify(rule.action)}${rule.action === 'confirm' ? ', which the calling user alone decides' : ''}); remove it or make the rule review` }]
      : [],
  );
}

function checkToolQuorums(tools: unknown): ManifestProblem[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool, index) =>
    isJsonObject(tool) && tool.approvals !== undefined && tool.approval === 'never'
      ? [{ path: `$.tools[${index}].approvals`, message: 'has no effect: the tool\'s approval is "never", so no call of it waits for approvers; remove one of the two' }]
      : [],
  );
}
