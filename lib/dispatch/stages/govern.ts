import type { GovernanceDecision, GovernanceRequest, Governor } from '../../governance/policy.ts';
import type { ToolExecutionContext } from '../../registry/executor.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** grant and review go on (review to be parked for a human); deny ends the call as `denied`. */
export async function governStage(governor: Governor, request: GovernanceRequest): Promise<StageResult<Exclude<GovernanceDecision, { action: 'deny' }>>> {
  const decision = await governor.decide(request);
  if (decision.action !== 'deny') return pass(decision);
  return fail({
    code: 'denied',
    message: `Tool \`${request.definition.name}\` is denied by policy: ${decision.reason}.`,
    details: { reason: decision.reason },
  });
}

/** What a grant limits the run to, as execution-context fields: a grant by a read-only class runs read-only. */
export function grantedExecution(decision: Exclude<GovernanceDecision, { action: 'deny' }>): Pick<ToolExecutionContext, 'read_only'> {
  return decision.action === 'grant' && decision.constraints?.read_only ? { read_only: true } : {};
}
