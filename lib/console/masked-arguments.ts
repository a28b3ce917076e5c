import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';
import { reviewerArguments } from '../http/approval-view.ts';
import type { JsonObject } from '../registry/json.ts';
import type { Store } from '../stores/store.ts';

/**
 * An approval's arguments as a reviewer sees them in the console: masked as the API shows them
 * (approval-view.ts). Undefined when the tool is not in the active manifest: the console then
 * hides them rather than show what an older version said about them.
 */
export async function maskedArguments(store: Store, runtime: TenantRuntime, approval: Approval): Promise<JsonObject | undefined> {
  if (!runtime.registry.get(approval.tool)) return undefined;
  return reviewerArguments(runtime, approval, store);
}
