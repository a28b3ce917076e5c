import type { TenantRuntime } from './tenant-runtime.ts';

/** Finds the runtime serving a tenant (the store-backed one: StoreTenantDirectory). */
export interface TenantDirectory {
  runtime(tenant: string): Promise<TenantRuntime | undefined>;
  /** Drops this isolate's cached view of the tenant (after its active manifest changed here). */
  invalidate?(tenant: string): void;
  /**
   * How much longer (ms) this isolate serves the tenant's active version without reading its
   * pointer again: a client told to cache a list that long lists again no later than a newly
   * activated version is served. Undefined when the directory cannot say.
   */
  freshForMs?(tenant: string): number | undefined;
}
