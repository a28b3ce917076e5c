import { missingScope } from '../governance/scopes.ts';
import type { PolicyRule } from '../governance/rules.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';

/**
 * Whether a caller may call a tool at all, judged before any arguments exist: it holds the
 * tool's scopes, and the tenant's policy does not deny every call of it. Search answers, the
 * deferred lists and MCP's short list show only such tools, so no answer names a tool the
 * caller could only be refused. A rule that depends on the call (argument patterns, a
 * condition, anything beyond the fields below) may or may not match, so it hides nothing:
 * the pipeline still decides each call.
 */
export type CallablePredicate = (definition: ToolDefinition) => boolean;

/** The rule fields that never depend on the call: a rule with only these matches every call of its tool. */
const UNCONDITIONAL_FIELDS = new Set(['tool', 'action', 'description', 'approvals', 'max_timeout_ms']);

function unconditional(rule: PolicyRule): boolean {
  return Object.entries(rule).every(([field, value]) => UNCONDITIONAL_FIELDS.has(field) || value === undefined || (field === 'arguments' && Object.keys(value as object).length === 0));
}

/** Tools the policy denies whatever the call (policy.ts's precedence: the tool's approval, then the first matching rule, then the tier). */
export function deniedByPolicy(manifest: Pick<Manifest, 'policy' | 'tools'>): (definition: ToolDefinition) => boolean {
  const rules = manifest.policy?.rules ?? [];
  const approvals = new Map(manifest.tools.flatMap((tool) => (tool.approval ? [[tool.name, tool.approval] as const] : [])));
  const tiers = manifest.policy ?? {};
  return (definition) => {
    const approval = approvals.get(definition.name);
    // "always" reviews and "never" grants before any rule is read.
    if (approval === 'always' || approval === 'never') return false;
    for (const rule of rules) {
      if (rule.tool !== '*' && rule.tool !== definition.name) continue;
      if (rule.action !== 'deny') return false;
      if (unconditional(rule)) return true;
    }
    // A tool's "confirm" replaces the tier's action.
    return approval !== 'confirm' && tiers[definition.tier] === 'deny';
  };
}

/** The caller's predicate: its scopes (undefined: a trusted in-process caller) and the tenant's policy. */
export function callableBy(manifest: Pick<Manifest, 'policy' | 'tools'>, scopes: ReadonlySet<string> | undefined): CallablePredicate {
  const denied = deniedByPolicy(manifest);
  return (definition) => missingScope(definition, scopes) === undefined && !denied(definition);
}
