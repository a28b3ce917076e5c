import type { Manifest } from '../registry/manifest.ts';
import { buildTenantRuntime, type GatewayServices, type TenantRuntime } from './tenant-runtime.ts';

/** Finds the runtime serving a tenant. */
export interface TenantDirectory {
  runtime(tenant: string): Promise<TenantRuntime | undefined>;
  /** Drops this isolate's cached view of the tenant (after its active manifest changed here). */
  invalidate?(tenant: string): void;
}

/** Manifests fixed at start-up (the local gateway, a static deployment). Runtimes are built on first use. */
export class StaticTenantDirectory implements TenantDirectory {
  readonly #manifests = new Map<string, Manifest>();
  readonly #runtimes = new Map<string, TenantRuntime>();
  readonly #services: GatewayServices;

  constructor(manifests: Manifest[], services: GatewayServices) {
    for (const manifest of manifests) this.#manifests.set(manifest.tenant, manifest);
    this.#services = services;
  }

  async runtime(tenant: string): Promise<TenantRuntime | undefined> {
    let runtime = this.#runtimes.get(tenant);
    if (!runtime) {
      const manifest = this.#manifests.get(tenant);
      if (!manifest) return undefined;
      runtime = buildTenantRuntime(manifest, this.#services);
      this.#runtimes.set(tenant, runtime);
    }
    return runtime;
  }
}
