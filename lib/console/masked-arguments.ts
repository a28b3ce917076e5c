import { maskSensitive } from '../audit/redact.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';
import { approvalView } from '../http/approval-view.ts';
import type { JsonObject } from '../registry/json.ts';
import { loadPublished } from '../registry/manifest-store.ts';
import type { Store } from '../stores/store.ts';

/**
 * An approval's arguments as a reviewer sees them: masked by the active manifest's schema of the
 * tool and also by the schema of the version the call was parked under, so a newer version that
 * drops an `x-sensitive` mark (or renames the field) does not reveal a value sent as a secret.
 * Undefined when the tool is not in the active manifest (its sensitive fields are unknown).
 */
export async function maskedArguments(store: Store, runtime: TenantRuntime, approval: Approval): Promise<JsonObject | undefined> {
  if (!runtime.registry.get(approval.tool)) return undefined;
  const shown = (await approvalView(runtime, approval)).arguments;
  const parkedUnder = approval.manifest_version;
  if (!parkedUnder || parkedUnder === runtime.manifest.version) return shown;
  const published = await loadPublished(store, approval.tenant, parkedUnder);
  const schema = published?.manifest.tools.find((tool) => tool.name === approval.tool)?.input_schema;
  return schema === undefined ? shown : maskSensitive(shown, schema);
}
