import type { Approval } from '../../governance/approval.ts';
import { updateApproval } from '../../governance/approvals.ts';
import type { ToolResult } from '../call.ts';
import type { DispatchDeps } from '../context.ts';
import { notifySettled } from './notice.ts';

/** How much of an approved call's result its approval keeps. */
const RESULT_EXCERPT_CHARS = 500;

/**
 * Ends an approved call's approval with what became of the call: `executed` with its result, or
 * `interrupted` when the gateway stopped mid-way. Compare-and-set from `approved`, so whoever gets
 * there first writes it and notifies; the others get the approval as stored.
 */
export async function concludeApproval(deps: DispatchDeps, approval: Approval, state: 'executed' | 'interrupted', result: ToolResult, defer?: (work: Promise<unknown>) => void): Promise<Approval> {
  const final: Approval = { ...approval, state, result: { status: result.status, is_error: result.is_error, content: result.content.slice(0, RESULT_EXCERPT_CHARS) } };
  if (!deps.store) return final;
  const outcome = await updateApproval(deps.store, approval.id, (current) => (current.state === 'approved' ? { ...current, state, result: final.result } : undefined), deps.now());
  if (!outcome?.written) return outcome?.approval ?? final;
  await notifySettled(deps, outcome.approval, defer);
  return outcome.approval;
}
