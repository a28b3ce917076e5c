import type { ToolDefinition, ToolTier } from '../registry/definition.ts';
import type { PatternBudget } from '../patterns/index.ts';
import type { JsonObject } from '../registry/json.ts';
import { grantConstraints, type GrantConstraints } from './argument-classes.ts';
import { compileRules, firstMatchingRule, rulesHaveConditions, type CompiledRule, type PolicyRule } from './rules.ts';
import { loadConditionEngine, loadedConditionEngine } from './conditions/condition.ts';

/**
 * What a tenant's policy says about a call: run it, ask another person (`review`), ask the
 * calling user to confirm their own call (`confirm`: for single-user agents such as a
 * developer's own IDE), or refuse.
 */
export type PolicyAction = 'grant' | 'review' | 'confirm' | 'deny';
export type TierPolicy = Record<ToolTier, PolicyAction>;

/**
 * A tool's own say in the manifest: always ask a human, never ask, ask the calling user to
 * confirm (where the policy would not deny it or ask another person), or follow the policy.
 */
export type ApprovalOverride = 'always' | 'never' | 'confirm' | 'policy';

/** Deny by default: reads run, anything with a side effect waits for a human. */
export const DEFAULT_TIER_POLICY: Readonly<TierPolicy> = { read: 'grant', write: 'review', execute: 'review' };

/**
 * How long a call granted without a human may run when the granting rule names no
 * `max_timeout_ms`: a granted command asking for longer (the shell tool's timeout_ms) is cut to
 * it. Long enough for what grants are for (reads, searches, git status/log/diff, a quick test:
 * seconds), short enough that a granted command that never ends (a follow, a read of a pipe)
 * holds one of the exec-server's few command slots for half a minute, not ten: the model chose
 * the command and its timeout, and nobody looked at them. A human's approval keeps the tool's
 * own maximum.
 */
export const DEFAULT_GRANTED_TIMEOUT_MS = 30_000;

export type GovernanceDecision =
  | {
      action: 'grant';
      reason: string;
      /** Set when a rule granted by argument class: what the run is limited to. */
      constraints?: GrantConstraints;
      /** Set when the granting rule names one: the longest the call may run (else DEFAULT_GRANTED_TIMEOUT_MS). */
      max_timeout_ms?: number;
    }
  | { action: 'review'; reason: string; /** An approval id chosen by a custom handler. */ request_id?: string; /** Distinct approvers needed (default 1). */ quorum?: number }
  /** Parked like review, but only the requesting principal decides (quorum 1, no four-eyes). */
  | { action: 'confirm'; reason: string }
  | { action: 'deny'; reason: string };

/** The decisions that park a call until someone decides: another person (review) or the caller itself (confirm). */
export type ParkingDecision = Extract<GovernanceDecision, { action: 'review' | 'confirm' }>;

export interface GovernanceRequest {
  definition: ToolDefinition;
  args: JsonObject;
  principal: string;
  /** The caller's token claims, for rule conditions (none for API keys). */
  claims?: Readonly<Record<string, unknown>>;
  /** ms since epoch, for rule conditions that read the time (default: the clock). */
  now?: number;
  /** The request's shared matching budget, charged by rule patterns (lib/patterns/budget.ts). */
  patternBudget?: PatternBudget;
}

/** Decides whether a validated, authorised call may run. */
export interface Governor {
  decide(request: GovernanceRequest): GovernanceDecision | Promise<GovernanceDecision>;
  /**
   * Whether any call of this tool could be parked for a human: false only when no arguments and
   * no caller can make the policy say review or confirm. Lets a caller skip work that only parked
   * calls need (MCP looks a re-sent parked call up only for tools that can park). Without it, assume yes.
   */
  mayReview?(definition: ToolDefinition): boolean;
}

export interface PolicyConfig extends Partial<TierPolicy> {
  rules?: PolicyRule[];
}

/** How many approvers a reviewed call needs: the tenant's default and each tool's own (manifest `approvals.quorum`). */
export interface QuorumSettings {
  default?: number;
  tools?: ReadonlyMap<string, number>;
}

/** The manifest's tier → action table alone. */
export function tierGovernor(policy: Partial<TierPolicy> = {}): Governor {
  return policyGovernor({ ...policy });
}

/**
 * The manifest's policy. Precedence, first that applies:
 * 1. the tool's `approval`: "always" → review, "never" → grant;
 * 2. the first rule whose tool and argument patterns match;
 * 3. the tier's action (default read grant, write review, execute review).
 * A tool's `approval: "confirm"` replaces the tier's action and turns a grant rule into confirm;
 * a rule that denies or asks for review stands (the caller's own word never replaces a refusal
 * or another person's review that the tenant wrote for those arguments).
 * A review needs the largest quorum that applies (the tenant's default, the tool's, the matching
 * rule's): no setting can lower another's four-eyes. A confirm needs the requester alone.
 */
export function policyGovernor(policy: PolicyConfig = {}, overrides: ReadonlyMap<string, ApprovalOverride> = new Map(), quorums: QuorumSettings = {}): Governor {
  const { rules = [], ...tiers } = policy;
  const table: TierPolicy = { ...DEFAULT_TIER_POLICY, ...tiers };
  const compiled = compileRules(rules);
  const withQuorum = (decision: GovernanceDecision, tool: string, rule?: CompiledRule): GovernanceDecision => {
    if (decision.action !== 'review') return decision;
    const quorum = Math.max(1, quorums.default ?? 1, quorums.tools?.get(tool) ?? 1, rule?.rule.approvals?.quorum ?? 1);
    return quorum > 1 ? { ...decision, quorum } : decision;
  };
  const anyParking = (definition: ToolDefinition): boolean => {
    const override = overrides.get(definition.name);
    if (override === 'always' || override === 'never' || override === 'confirm') return override !== 'never';
    // Some arguments may match a review or confirm rule for the tool, or miss every rule and fall to the tier.
    return parks(table[definition.tier]) || compiled.some(({ rule }) => parks(rule.action) && (rule.tool === '*' || rule.tool === definition.name));
  };
  const mayReviewByTool = new WeakMap<ToolDefinition, boolean>();
  const decide = ({ definition, args, principal, claims, now, patternBudget }: GovernanceRequest): GovernanceDecision => {
    const override = overrides.get(definition.name);
    if (override === 'always') return withQuorum({ action: 'review', reason: `tool "${definition.name}" always needs approval` }, definition.name);
    if (override === 'never') return { action: 'grant', reason: `tool "${definition.name}" never needs approval` };
    const caller = { principal, claims: claims ?? {}, now: now ?? Date.now(), inputSchema: definition.input_schema };
    const rule = firstMatchingRule(compiled, definition.name, args, caller, patternBudget);
    if (override === 'confirm') return confirmedByTool(rule && withQuorum(ruleDecision(rule), definition.name, rule), definition.name);
    if (rule) return withQuorum(ruleDecision(rule), definition.name, rule);
    const action = table[definition.tier];
    return withQuorum({ action, reason: `policy for tier "${definition.tier}" is ${action}` }, definition.name);
  };
  // Rules with a condition need the CEL engine: loaded on the first call that could reach one, so a tenant without conditions never loads it.
  return {
    decide(request): GovernanceDecision | Promise<GovernanceDecision> {
      if (loadedConditionEngine() || !rulesHaveConditions(compiled, request.definition.name)) return decide(request);
      return loadConditionEngine().then(() => decide(request));
    },
    mayReview(definition): boolean {
      let known = mayReviewByTool.get(definition);
      if (known === undefined) mayReviewByTool.set(definition, (known = anyParking(definition)));
      return known;
    },
  };
}

const parks = (action: PolicyAction) => action === 'review' || action === 'confirm';

/** A tool whose `approval` is "confirm": its calls wait for the caller's confirmation, unless a matching rule denies them or asks another person. */
function confirmedByTool(ruled: GovernanceDecision | undefined, tool: string): GovernanceDecision {
  if (ruled && ruled.action !== 'grant') return ruled;
  return { action: 'confirm', reason: `tool "${tool}" needs its caller's confirmation` };
}

/**
 * A matching rule's decision; a grant by argument class carries the class's constraints
 * (read-only), and a grant carries the rule's max_timeout_ms when it names one.
 */
function ruleDecision(compiled: CompiledRule): GovernanceDecision {
  const { action, description, tool, max_timeout_ms } = compiled.rule;
  const reason = description ?? `policy rule ${compiled.index + 1} (${tool}) says ${action}`;
  if (action !== 'grant') return { action, reason };
  const constraints = grantConstraints(compiled.classes.map(([, argumentClass]) => argumentClass));
  return { action, reason, ...(constraints ? { constraints } : {}), ...(max_timeout_ms === undefined ? {} : { max_timeout_ms }) };
}
