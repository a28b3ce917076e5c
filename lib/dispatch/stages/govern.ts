import type { GovernanceDecision, GovernanceRequest, Governor } from '../../governance/policy.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** grant → run; deny → `denied`; review → `denied` ("approval required") until deferred approvals exist. */
export async function governStage(governor: Governor, request: GovernanceRequest): Promise<StageResult<GovernanceDecision>> {
  const decision = await governor.decide(request);
  if (decision.action === 'grant') return pass(decision);
  const name = request.definition.name;
  if (decision.action === 'deny') {
    return fail({ code: 'denied', message: `Tool \`${name}\` is denied by policy: ${decision.reason}.`, details: { reason: decision.reason } });
  }
  return fail({
    code: 'denied',
    message: `Tool \`${name}\` needs human approval (approval required: ${decision.reason}), and approvals are not enabled for this tenant.`,
    details: { reason: decision.reason, approval_required: true },
  });
}
