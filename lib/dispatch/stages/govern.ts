import type { GovernanceDecision, GovernanceRequest, Governor } from '../../governance/policy.ts';
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
