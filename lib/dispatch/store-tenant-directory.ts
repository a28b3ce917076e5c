import type { Manifest } from '../registry/manifest/manifest.ts';
import { passedTheseChecks } from '../registry/manifest/checks.ts';
import { loadActivePointer, loadPublished } from '../registry/manifest/manifest-store.ts';
import type { Store } from '../stores/store.ts';
import type { TenantDirectory } from './tenant-directory.ts';
import { buildTenantRuntime, type GatewayServices, type StoredVersion, type TenantRuntime } from './tenant-runtime.ts';

/** How many tenants an isolate remembers; names of tenants that do not exist are forgotten first. */
const MAX_CACHED_TENANTS = 10_000;

interface Cached {
  version?: string;
  runtime?: TenantRuntime;
  checked_at: number;
}

export interface StoreTenantDirectoryOptions {
  /** How long an isolate trusts its view of the active version (default 5 s). */
  cacheMs?: number;
  /** Applied to a manifest before its runtime is built, never stored (the local demo's exec-server URL). */
  overlay?: (manifest: Manifest) => Manifest;
  now?: () => number;
}

/**
 * Tenants whose active manifest lives in the store. Each isolate caches the runtime of the active
 * version and re-reads the pointer after `cacheMs`, so a newly activated version is served within
 * seconds without a redeploy. A call keeps the runtime it started with, so calls in flight finish
 * on their version. If the store cannot be read, the last known runtime keeps serving.
 */
export class StoreTenantDirectory implements TenantDirectory {
  readonly #store: Store;
  readonly #services: GatewayServices;
  readonly #cacheMs: number;
  readonly #overlay: (manifest: Manifest) => Manifest;
  readonly #now: () => number;
  readonly #cache = new Map<string, Cached>();
  readonly #loading = new Map<string, Promise<TenantRuntime | undefined>>();

  constructor(store: Store, services: GatewayServices, options: StoreTenantDirectoryOptions = {}) {
    this.#store = store;
    this.#services = services;
    this.#cacheMs = options.cacheMs ?? 5000;
    this.#overlay = options.overlay ?? ((manifest) => manifest);
    this.#now = options.now ?? Date.now;
  }

  async runtime(tenant: string): Promise<TenantRuntime | undefined> {
    const cached = this.#cache.get(tenant);
    if (cached && this.#now() - cached.checked_at < this.#cacheMs) return cached.runtime;
    // Concurrent requests after the cache expired share one refresh.
    let loading = this.#loading.get(tenant);
    if (!loading) {
      loading = this.#refresh(tenant, cached).finally(() => this.#loading.delete(tenant));
      this.#loading.set(tenant, loading);
    }
    return loading;
  }

  freshForMs(tenant: string): number | undefined {
    const cached = this.#cache.get(tenant);
    return cached?.runtime ? Math.max(0, this.#cacheMs - (this.#now() - cached.checked_at)) : undefined;
  }

  /** Forgets what this isolate knows, so the next call reads the store (after an activation here). */
  invalidate(tenant: string): void {
    this.#cache.delete(tenant);
  }

  /**
   * Unauthenticated requests can name any tenant (a token's X-Toolgate-Tenant, the discovery
   * route), so absent names must not grow the cache without bound: past the limit they are
   * dropped first, and when only real tenants fill it, an absent name is not remembered.
   */
  #rememberAbsent(tenant: string, now: number): void {
    if (this.#cache.size >= MAX_CACHED_TENANTS) {
      for (const [name, cached] of this.#cache) if (!cached.runtime) this.#cache.delete(name);
      if (this.#cache.size >= MAX_CACHED_TENANTS) return;
    }
    this.#cache.set(tenant, { checked_at: now });
  }

  /** A published version of the tenant, as its runtime would be built from it; a record that is not that version (written by hand) is none. */
  async #storedVersion(tenant: string, version: string): Promise<StoredVersion | undefined> {
    const published = await loadPublished(this.#store, tenant, version);
    if (published?.manifest?.tenant !== tenant || published.manifest.version !== version) return undefined;
    return { manifest: this.#overlay(published.manifest), checked: passedTheseChecks(published) };
  }

  async #refresh(tenant: string, cached: Cached | undefined): Promise<TenantRuntime | undefined> {
    const now = this.#now();
    try {
      const pointer = await loadActivePointer(this.#store, tenant);
      if (!pointer) {
        this.#rememberAbsent(tenant, now);
        return undefined;
      }
      if (cached?.runtime && cached.version === pointer.version) {
        cached.checked_at = now;
        return cached.runtime;
      }
      const published = await loadPublished(this.#store, tenant, pointer.version);
      if (!published) throw new Error(`the active version ${pointer.version} of tenant "${tenant}" is missing from the store`);
      const loadVersion = (version: string) => this.#storedVersion(tenant, version);
      const runtime = buildTenantRuntime(this.#overlay(published.manifest), this.#services, { schemasChecked: passedTheseChecks(published), loadVersion });
      this.#cache.set(tenant, { version: pointer.version, runtime, checked_at: now });
      return runtime;
    } catch (error) {
      if (cached?.runtime) return cached.runtime;
      throw error;
    }
  }
}
