import type { Logger } from '../dispatch/events.ts';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { buildManifestRegistry } from '../registry/manifest/manifest-registry.ts';
import type { Store } from '../stores/store.ts';
import { tenantBuiltins } from '../tools/tenant-tools.ts';
import { buildSearchIndex } from './bm25-index.ts';
import { searchableDefinitions, searchDocument } from './catalog.ts';
import { hasSearchIndex, saveSearchIndex } from './stored-index.ts';

/**
 * Builds and stores the search index of a published version, so no isolate rebuilds it: over
 * the tools its runtime will serve (the profile's coding tools, built-ins and the manifest's
 * tools, each as the manifest defines it), built without secrets or network (nothing runs).
 * A failure is logged and costs only speed: a runtime without a stored index builds its own.
 */
export async function indexPublishedManifest(store: Store, manifest: Manifest, log: Logger): Promise<void> {
  try {
    if (await hasSearchIndex(store, manifest.tenant, manifest.version)) return;
    const { coding, builtins } = tenantBuiltins(manifest);
    const registry = buildManifestRegistry(manifest, defaultExecutorKinds(), { builtins }, coding);
    const stored = await saveSearchIndex(store, manifest.tenant, manifest.version, buildSearchIndex(searchableDefinitions(registry).map(searchDocument)));
    log('search.index.stored', { tenant: manifest.tenant, version: manifest.version, tools: registry.size, ...stored });
  } catch (error) {
    log('search.index.failed', { tenant: manifest.tenant, version: manifest.version, error: error instanceof Error ? error.message : String(error) });
  }
}
