import type { TenantRuntime } from './tenant-runtime.ts';

/** Finds the runtime serving a tenant (the store-backed one: StoreTenantDirectory). */
export interface TenantDirectory {
  runtime(tenant: string): Promise<TenantRuntime | undefined>;
  /** Drops this isolate's cached view of the tenant (after its active manifest changed here). */
  invalidate?(tenant: string): void;
}
