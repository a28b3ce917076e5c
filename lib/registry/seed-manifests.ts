import type { AuditRecorder } from '../audit/recorder.ts';
import { SecretGrantsError, type SecretGrants } from '../crypto/secret-grants.ts';
import type { Logger } from '../dispatch/events.ts';
import type { Store } from '../stores/store.ts';
import type { JsonObject } from './json.ts';
import type { Manifest } from './manifest/manifest.ts';
import { confinementProblems } from './manifest/confinement.ts';
import { activateManifest, loadActivePointer, ManifestLifecycleError, publishManifest } from './manifest/manifest-store.ts';

/**
 * Manifests a deployment brings along (the demo tenant, a bundled manifest): published if their
 * version is not in the store yet, activated if the tenant has no active version. A store that
 * already has other content under the same version keeps it (versions are immutable): the log says
 * to bump the version. `checked`: the manifests are the deployment's own, and its tests ran the
 * publish checks on them (test/registry/seed-manifests.test.ts for the bundled demo), so their
 * records say so and their schemas compile without being linted again on a new isolate's first call.
 */
export async function seedManifests(store: Store, audit: AuditRecorder, manifests: Manifest[], log: Logger, options: { checked?: boolean } = {}): Promise<void> {
  for (const manifest of manifests) {
    try {
      await publishManifest(store, audit, manifest, 'deployment', { checked: options.checked === true });
    } catch (error) {
      if (!(error instanceof ManifestLifecycleError)) throw error;
      log('manifest.seed.kept', { tenant: manifest.tenant, version: manifest.version, message: `${error.message}; the store's copy stays in use` });
    }
    if (!(await loadActivePointer(store, manifest.tenant))) await activateManifest(store, audit, manifest.tenant, manifest.version, 'deployment');
  }
}

/**
 * A manifest the deployment brings along is published like any other, so it may name only the
 * secrets granted to its tenant: one that names another is a start-up configuration error.
 */
export function refuseUngrantedSeeds(manifests: Manifest[], grants: SecretGrants): void {
  for (const manifest of manifests) {
    const problems = confinementProblems(manifest as unknown as JsonObject, { secretGrants: grants });
    if (problems.length > 0) {
      const lines = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
      throw new SecretGrantsError(`the bundled manifest of tenant "${manifest.tenant}" (version ${manifest.version}) names secrets its tenant was not granted:\n${lines}`);
    }
  }
}
