import { maskSensitive } from '../audit/redact.ts';
import type { Approval } from '../governance/approval.ts';
import { loadApproval } from '../governance/approvals.ts';
import type { DispatchDeps } from './context.ts';

/** The approval's arguments with the tool's `x-sensitive` fields masked, for people to read. */
export function previewArguments(deps: DispatchDeps, approval: Approval) {
  return maskSensitive(approval.arguments, deps.registry.get(approval.tool)?.definition.input_schema ?? {});
}

/** Runs follow-up work after the response where the runtime allows it, else now. */
export async function deferOrAwait(defer: ((work: Promise<unknown>) => void) | undefined, work: () => Promise<unknown>): Promise<void> {
  if (defer) defer(work());
  else await work();
}

/** Shows an approval's final state where its request was posted (Slack), if anywhere. */
export async function notifySettled(deps: DispatchDeps, approval: Approval, defer?: (work: Promise<unknown>) => void): Promise<void> {
  const notifier = deps.approvals?.notifier;
  if (notifier) await deferOrAwait(defer, async () => notifier.settled(approval, await previewArguments(deps, approval)));
}

/**
 * Shows an approval still collecting approvals with its progress ("1 of 2 approvals"), where its
 * request was posted. Read again first (the update may run after the response): once the approval
 * ended, its final message is the settling decision's to show, and a late progress update must
 * not bring the buttons back.
 */
export async function notifyProgress(deps: DispatchDeps, approval: Approval, defer?: (work: Promise<unknown>) => void): Promise<void> {
  const notifier = deps.approvals?.notifier;
  if (!notifier?.progressed) return;
  await deferOrAwait(defer, async () => {
    const current = deps.store ? await loadApproval(deps.store, approval.id, deps.now()) : approval;
    if (current?.state === 'pending') await notifier.progressed!(current, await previewArguments(deps, current));
  });
}
