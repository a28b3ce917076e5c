import { maskSensitive } from '../audit/redact.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';

/** An approval as the API shows it: sensitive arguments masked, internal keys left out. */
export async function approvalView(runtime: TenantRuntime, approval: Approval) {
  const { call_key: _key, arguments: args, ...rest } = approval;
  const schema = runtime.registry.get(approval.tool)?.definition.input_schema;
  return { ...rest, arguments: schema === undefined ? args : await maskSensitive(args, schema) };
}
