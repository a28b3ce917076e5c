import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';

/**
 * What a tenant's MCP server can do with calls that wait for a human: park them (a store,
 * approvals, and a policy that can say review for the tool) and hand out tasks for them (tasks
 * live in the store).
 */

/** Whether a call of the tool `name` can be parked for approval here (an unknown tool cannot). */
export function canPark(runtime: TenantRuntime, name: string): boolean {
  const { deps } = runtime;
  if (!deps.store || !deps.approvals) return false;
  const tool = runtime.registry.get(name);
  return tool !== undefined && (deps.governor.mayReview?.(tool.definition) ?? true);
}

/** Whether this tenant's MCP server offers tasks (2026-07-28's extension, 2025-11-25's vocabulary). */
export function tasksOffered(runtime: TenantRuntime): boolean {
  return runtime.deps.store !== undefined;
}
