import { DEFAULT_GRANTED_TIMEOUT_MS, type GovernanceDecision, type GovernanceRequest, type Governor } from '../../governance/policy.ts';
import { PatternBudgetError } from '../../patterns/index.ts';
import type { ToolExecutionContext } from '../../registry/executor.ts';
import { genericNaming, type CallNaming } from '../call-naming.ts';
import { requestPatternBudgetSpent, rulePatternBudgetSpent } from '../pattern-budget.ts';
import { fail, pass, type StageResult } from './stage.ts';

/**
 * grant and review go on (review to be parked for a human); deny ends the call as `denied`. Rule
 * patterns that cannot be matched in bounded time (the request's budget or the decision's is
 * spent) end it as `error`: it does not run.
 */
/** What govern passes on: any decision but deny. */
export type GrantedDecision = Exclude<GovernanceDecision, { action: 'deny' }>;

export async function governStage(
  governor: Governor,
  request: GovernanceRequest,
  naming: CallNaming = genericNaming(request.definition.name),
): Promise<StageResult<Exclude<GovernanceDecision, { action: 'deny' }>>> {
  let decision: GovernanceDecision;
  try {
    decision = await governor.decide(request);
  } catch (error) {
    if (!(error instanceof PatternBudgetError)) throw error;
    // Validation left the request's budget unspent, and nothing ran in between: this call's rules spent it.
    return fail(request.patternBudget?.spent ? requestPatternBudgetSpent(naming, 'this call') : rulePatternBudgetSpent(naming));
  }
  if (decision.action !== 'deny') return pass(decision);
  // The reason (a rule's description, or one naming the rule's tool pattern) is the tenant's, in the tenant's tool names.
  return fail({
    code: 'denied',
    message: `Tool ${naming.tool} is denied by policy: ${naming.inText(decision.reason)}.`,
    details: { reason: decision.reason },
  });
}

/**
 * What a grant limits the run to, as execution-context fields: every call granted without a
 * human (by a rule, the tier, the tool's `approval: never`, a custom governor) runs at most the
 * granting rule's max_timeout_ms, by default DEFAULT_GRANTED_TIMEOUT_MS; a grant by a read-only
 * class runs read-only.
 */
export function grantedExecution(decision: Exclude<GovernanceDecision, { action: 'deny' }>): Pick<ToolExecutionContext, 'read_only' | 'max_timeout_ms'> {
  if (decision.action !== 'grant') return {};
  const max_timeout_ms = decision.max_timeout_ms ?? DEFAULT_GRANTED_TIMEOUT_MS;
  return decision.constraints?.read_only ? { read_only: true, max_timeout_ms } : { max_timeout_ms };
}
