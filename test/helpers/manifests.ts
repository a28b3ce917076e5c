import { defaultExecutorKinds } from '../../lib/registry/executors/index.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { loadManifest, type ManifestLoadOptions } from '../../lib/registry/manifest/loader.ts';
import { builtinsForUncheckedManifest } from '../../lib/tools/tenant-tools.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';

export function loaderOptions(overrides: Partial<ManifestLoadOptions> = {}): ManifestLoadOptions {
  return { validator: createAjvValidator(), kinds: defaultExecutorKinds(), builtins: builtinsForUncheckedManifest, ...overrides };
}

/** Manifest fields a test may override; tools stay loosely typed so tests can write broken ones. */
export type ManifestOverrides = Partial<Omit<Manifest, 'tools'>> & { tools?: unknown[] };

/** A valid manifest to start from; tests change one thing at a time. */
export function baseManifest(overrides: ManifestOverrides = {}): Manifest {
  return {
    format: 'toolgate.manifest/v1',
    tenant: 'acme',
    version: '1',
    profile: 'openai',
    policy: { read: 'grant', write: 'grant', execute: 'deny' },
    tools: [{ name: 'echo', executor: { kind: 'builtin' } }],
    ...overrides,
  } as Manifest;
}

/** Loads a manifest that must be valid, for tests that need one. */
export function validManifest(overrides: ManifestOverrides = {}): Manifest {
  const result = loadManifest(baseManifest(overrides), loaderOptions());
  if (!result.ok) throw new Error(`test manifest invalid: ${JSON.stringify(result.problems)}`);
  return result.manifest;
}
