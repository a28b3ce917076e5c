import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';
import { reviewerArguments } from '../http/approval-view.ts';
import type { JsonObject } from '../registry/json.ts';
import type { Store } from '../stores/store.ts';

/**
 * An approval's arguments as a reviewer sees them in the console: masked as the API shows them
 * (approval-view.ts), by the tool's schema in the version the call was parked under (the one an
 * approval runs) and in the active one. Undefined when neither defines the tool: hidden then.
 */
export async function maskedArguments(store: Store, runtime: TenantRuntime, approval: Approval): Promise<JsonObject | undefined> {
  return reviewerArguments(runtime, approval, store);
}
