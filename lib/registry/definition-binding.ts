import { hashJson } from '../idempotency/canonical-json.ts';
import type { ExecutionEnvironmentRef, Manifest, ManifestTool, Profile } from './manifest/manifest.ts';

/**
 * What a call of one tool runs under one manifest version, as data: the tool's manifest entry,
 * its executor included. A built-in also runs on the manifest's profile and exec-server, which
 * are not in its entry, so they are part of it too; a coding tool of the profile that the
 * manifest does not list is bound by its name. An approval is bound to this value's hash.
 */
export interface BoundDefinition {
  tool: ManifestTool;
  profile?: Profile;
  execution_environment?: ExecutionEnvironmentRef;
}

/** The bound definition of `name` in `manifest` (the caller knows the tool is in its registry). */
export function boundDefinition(manifest: Manifest, name: string): BoundDefinition {
  const tool = manifest.tools.find((entry) => entry.name === name) ?? { name, executor: { kind: 'builtin' } };
  if (tool.executor.kind !== 'builtin') return { tool };
  return { tool, profile: manifest.profile, ...(manifest.execution_environment ? { execution_environment: manifest.execution_environment } : {}) };
}

/** SHA-256 of the bound definition's canonical JSON: equal exactly when the same thing would run. */
export function definitionHash(bound: BoundDefinition): Promise<string> {
  return hashJson(bound);
}
