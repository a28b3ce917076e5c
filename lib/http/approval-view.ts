import { maskSensitive } from '../audit/redact.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';
import { approvalsOf, quorumOf } from '../governance/approvals.ts';
import type { JsonObject, JsonSchema } from '../registry/json.ts';
import { loadPublished } from '../registry/manifest/manifest-store.ts';
import type { Store } from '../stores/store.ts';

/**
 * An approval as the API shows it: sensitive arguments masked, internal keys left out, and its
 * progress: how many distinct approvers approved of how many it needs.
 */
export async function approvalView(runtime: TenantRuntime, approval: Approval, store: Store) {
  // The requester's proof (its identity provider subject) is for running the call, not for approvers to read.
  const { call_key: _key, revision: _revision, requested_by_proof: _proof, arguments: args, ...rest } = approval;
  const shown = await reviewerArguments(runtime, approval, store);
  return {
    ...rest,
    quorum: quorumOf(approval),
    decisions: approval.decisions ?? [],
    progress: { approvals: approvalsOf(approval).length, quorum: quorumOf(approval) },
    ...(shown ? { arguments: shown } : { arguments_hidden: 'the tool is in neither the active manifest nor the version the call was parked under, so which of its arguments are sensitive is unknown' }),
  };
}

/**
 * The arguments masked by the tool's schema in the active manifest AND in the version the call
 * was parked under, so a newer version that drops an `x-sensitive` mark (or removes the tool)
 * does not reveal a value sent as a secret. Undefined when neither schema is known.
 */
export async function reviewerArguments(runtime: TenantRuntime, approval: Approval, store: Store): Promise<JsonObject | undefined> {
  const schemas: JsonSchema[] = [];
  const active = runtime.registry.get(approval.tool)?.definition.input_schema;
  if (active !== undefined) schemas.push(active);
  const parkedUnder = approval.manifest_version;
  if (parkedUnder && parkedUnder !== runtime.manifest.version) {
    const published = await loadPublished(store, approval.tenant, parkedUnder);
    const parked = published?.manifest.tools.find((tool) => tool.name === approval.tool)?.input_schema;
    if (parked !== undefined) schemas.push(parked);
  }
  if (schemas.length === 0) return undefined;
  let shown = approval.arguments;
  for (const schema of schemas) shown = await maskSensitive(shown, schema);
  return shown;
}
