import type { ToolDefinition, ToolTier } from '../registry/definition.ts';
import type { JsonObject } from '../registry/json.ts';

/** What a tenant's policy says about a tier: run it, ask a human, or refuse. */
export type PolicyAction = 'grant' | 'review' | 'deny';
export type TierPolicy = Record<ToolTier, PolicyAction>;

/** Deny by default: reads run, anything with a side effect waits for a human. */
export const DEFAULT_TIER_POLICY: Readonly<TierPolicy> = { read: 'grant', write: 'review', execute: 'review' };

export type GovernanceDecision =
  | { action: 'grant'; reason: string }
  | { action: 'review'; reason: string }
  | { action: 'deny'; reason: string };

export interface GovernanceRequest {
  definition: ToolDefinition;
  args: JsonObject;
  principal: string;
}

/** Decides whether a validated, authorised call may run. */
export interface Governor {
  decide(request: GovernanceRequest): GovernanceDecision | Promise<GovernanceDecision>;
}

/** The manifest's tier → action table. */
export function tierGovernor(policy: Partial<TierPolicy> = {}): Governor {
  const table: TierPolicy = { ...DEFAULT_TIER_POLICY, ...policy };
  return {
    decide({ definition }) {
      const action = table[definition.tier];
      return { action, reason: `policy for tier "${definition.tier}" is ${action}` };
    },
  };
}
