import { maskSensitive } from '../../audit/redact.ts';
import type { Approval } from '../../governance/approval.ts';
import { loadApproval } from '../../governance/approvals.ts';
import type { JsonObject, JsonSchema } from '../../registry/json.ts';
import type { DispatchDeps } from '../context.ts';
import { UnusableVersionError } from '../manifest-versions.ts';

/**
 * The approval's arguments with the tool's `x-sensitive` fields masked, for people to read: by
 * the active version's schema and by the one the call was parked under (the one it runs), so a
 * newer version that drops the mark or the tool does not reveal a value sent as a secret.
 */
export async function previewArguments(deps: DispatchDeps, approval: Approval): Promise<JsonObject> {
  const shown = await maskSensitive(approval.arguments, deps.registry.get(approval.tool)?.definition.input_schema ?? {});
  const parked = await parkedSchema(deps, approval);
  return parked === undefined ? shown : maskSensitive(shown, parked);
}

async function parkedSchema(deps: DispatchDeps, approval: Approval): Promise<JsonSchema | undefined> {
  const version = approval.manifest_version;
  if (!deps.versions || !version || version === deps.versions.serving.manifest.version) return undefined;
  // A store that cannot be read propagates (no message rather than an unmasked one); a version this gateway cannot build has no schema to add.
  const tools = await deps.versions.load(version).catch((error: unknown) => {
    if (error instanceof UnusableVersionError) return undefined;
    throw error;
  });
  return tools?.registry.get(approval.tool)?.definition.input_schema;
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
