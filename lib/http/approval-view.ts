import { maskSensitive } from '../audit/redact.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Approval } from '../governance/approval.ts';
import { approvalsOf, quorumOf } from '../governance/approvals.ts';

/**
 * An approval as the API shows it: sensitive arguments masked, internal keys left out, and its
 * progress: how many distinct approvers approved of how many it needs.
 */
export async function approvalView(runtime: TenantRuntime, approval: Approval) {
  const { call_key: _key, revision: _revision, arguments: args, ...rest } = approval;
  const schema = runtime.registry.get(approval.tool)?.definition.input_schema;
  return {
    ...rest,
    quorum: quorumOf(approval),
    decisions: approval.decisions ?? [],
    progress: { approvals: approvalsOf(approval).length, quorum: quorumOf(approval) },
    arguments: schema === undefined ? args : await maskSensitive(args, schema),
  };
}
