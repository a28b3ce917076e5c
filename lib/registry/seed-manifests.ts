import type { AuditRecorder } from '../audit/recorder.ts';
import type { Logger } from '../dispatch/events.ts';
import type { Store } from '../stores/store.ts';
import type { Manifest } from './manifest.ts';
import { activateManifest, loadActivePointer, ManifestLifecycleError, publishManifest } from './manifest-store.ts';

/**
 * Manifests a deployment brings along (the demo tenant, a bundled manifest): published if their
 * version is not in the store yet, activated if the tenant has no active version. A store that
 * already has other content under the same version keeps it (versions are immutable): the log says
 * to bump the version.
 */
export async function seedManifests(store: Store, audit: AuditRecorder, manifests: Manifest[], log: Logger): Promise<void> {
  for (const manifest of manifests) {
    try {
      await publishManifest(store, audit, manifest, 'deployment');
    } catch (error) {
      if (!(error instanceof ManifestLifecycleError)) throw error;
      log('manifest.seed.kept', { tenant: manifest.tenant, version: manifest.version, message: `${error.message}; the store's copy stays in use` });
    }
    if (!(await loadActivePointer(store, manifest.tenant))) await activateManifest(store, audit, manifest.tenant, manifest.version, 'deployment');
  }
}
