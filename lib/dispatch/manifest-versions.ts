import type { Manifest } from '../registry/manifest/manifest.ts';
import type { ToolRegistry } from '../registry/registry.ts';
import type { SchemaCache } from './schema-cache.ts';

/** One manifest version's tools, built as the gateway builds them now (today's secret grants, egress and overlay). */
export interface VersionTools {
  manifest: Manifest;
  registry: ToolRegistry;
  schemas: SchemaCache;
}

/**
 * The manifest versions a tenant runtime can reach: the one it serves, and any other the store
 * still holds. An approved call runs the version it was parked under, whichever is active now.
 */
export interface ManifestVersions {
  serving: VersionTools;
  /** A stored version's tools, or undefined when the store no longer holds that version; UnusableVersionError when it cannot be built. */
  load(version: string): Promise<VersionTools | undefined>;
}

/** A stored version this gateway can no longer build (an executor kind or built-in it names is gone). */
export class UnusableVersionError extends Error {
  constructor(version: string, cause: unknown) {
    super(`version ${version} cannot be built: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'UnusableVersionError';
  }
}
