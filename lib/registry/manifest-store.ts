import type { AuditRecorder } from '../audit/recorder.ts';
import { hashJson } from '../idempotency/canonical-json.ts';
import type { JsonObject } from './json.ts';
import type { Store } from '../stores/store.ts';
import type { Manifest } from './manifest.ts';
import { MANIFEST_CHECKS } from './manifest-checks.ts';

/**
 * A tenant's manifests in the store: every published version immutable (`manifest/<tenant>/<v>`),
 * listed in publish order (index `manifests/<tenant>`), and one active version: a pointer record
 * whose `owner` is the active version, so activation is a compare-and-set on it.
 */
const part = (value: string) => encodeURIComponent(value);
export const manifestKey = (tenant: string, version: string) => `manifest/${part(tenant)}/${part(version)}`;
export const activeManifestKey = (tenant: string) => `manifest-active/${part(tenant)}`;
const manifestIndex = (tenant: string) => `manifests/${part(tenant)}`;

/** Where lifecycle envelopes go: one audit thread per tenant. */
export const MANIFEST_THREAD = '_manifests';

export interface PublishedManifest {
  manifest: Manifest;
  hash: string;
  published_at: string;
  published_by: string;
  /** MANIFEST_CHECKS when the manifest passed this gateway's publish checks (manifest-checks.ts). */
  checked?: string;
}

export interface ActivePointer {
  version: string;
  /** Versions active before, oldest first: rollback returns to the last. */
  history: string[];
  activated_at: string;
  activated_by: string;
}

export class ManifestLifecycleError extends Error {
  readonly code: 'conflict' | 'not_found';
  constructor(code: 'conflict' | 'not_found', message: string) {
    super(message);
    this.name = 'ManifestLifecycleError';
    this.code = code;
  }
}

export async function loadPublished(store: Store, tenant: string, version: string): Promise<PublishedManifest | undefined> {
  return (await store.get(manifestKey(tenant, version)))?.data as unknown as PublishedManifest | undefined;
}

export async function loadActivePointer(store: Store, tenant: string): Promise<ActivePointer | undefined> {
  return (await store.get(activeManifestKey(tenant)))?.data as unknown as ActivePointer | undefined;
}

/**
 * Publishes a manifest. Publishing the same content again is a no-op; the same version with other
 * content is a conflict (versions are immutable). `checked`: the caller ran the publish checks
 * (loadManifest) on this very manifest and they passed, so the record says so (manifest-checks.ts).
 */
export async function publishManifest(store: Store, audit: AuditRecorder, manifest: Manifest, by: string, options: { checked?: boolean } = {}): Promise<{ status: 'published' | 'unchanged'; version: string; hash: string }> {
  const hash = await hashJson(manifest);
  const published: PublishedManifest = { manifest, hash, published_at: new Date().toISOString(), published_by: by, ...(options.checked ? { checked: MANIFEST_CHECKS } : {}) };
  const claimed = await store.claim(manifestKey(manifest.tenant, manifest.version), { state: 'published', expires_at: 0, data: published as unknown as JsonObject });
  if (!claimed.claimed) {
    const existing = claimed.existing.data as unknown as PublishedManifest;
    if (existing.hash === hash) return { status: 'unchanged', version: manifest.version, hash };
    throw new ManifestLifecycleError('conflict', `version ${manifest.version} of tenant "${manifest.tenant}" is already published with other content; versions are immutable: publish under a new version`);
  }
  await store.addToIndex(manifestIndex(manifest.tenant), manifest.version, Date.now() * 1000 + Math.floor(Math.random() * 1000));
  await audit.record({ tenant: manifest.tenant, thread_id: MANIFEST_THREAD }, [lifecycleEnvelope('manifest.published', by, manifest.version, { version: manifest.version, hash })]);
  return { status: 'published', version: manifest.version, hash };
}

/** Makes `version` the active one (atomically; audited). `rollback` marks a return to the previous version. */
export async function activateManifest(store: Store, audit: AuditRecorder, tenant: string, version: string, by: string): Promise<{ from: string | null; to: string }> {
  if (!(await loadPublished(store, tenant, version))) throw new ManifestLifecycleError('not_found', `version ${version} of tenant "${tenant}" is not published`);
  return movePointer(store, audit, tenant, by, (current) => ({ to: version, history: current ? [...current.history, current.version] : [], rollback: false }));
}

/** Returns to the version active before the current one (atomically; audited). */
export async function rollbackManifest(store: Store, audit: AuditRecorder, tenant: string, by: string): Promise<{ from: string | null; to: string }> {
  return movePointer(store, audit, tenant, by, (current) => {
    const previous = current?.history.at(-1);
    if (!current || previous === undefined) throw new ManifestLifecycleError('not_found', `tenant "${tenant}" has no earlier active version to roll back to`);
    return { to: previous, history: current.history.slice(0, -1), rollback: true };
  });
}

type NextPointer = (current: ActivePointer | undefined) => { to: string; history: string[]; rollback: boolean };

async function movePointer(store: Store, audit: AuditRecorder, tenant: string, by: string, next: NextPointer): Promise<{ from: string | null; to: string }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await loadActivePointer(store, tenant);
    const { to, history, rollback } = next(current);
    const pointer: ActivePointer = { version: to, history, activated_at: new Date().toISOString(), activated_by: by };
    const record = { state: 'active', owner: to, expires_at: 0, data: pointer as unknown as JsonObject };
    const moved = current
      ? (await store.transition(activeManifestKey(tenant), { state: 'active', owner: current.version }, record)).ok
      : (await store.claim(activeManifestKey(tenant), record)).claimed;
    if (moved) {
      const from = current?.version ?? null;
      await audit.record({ tenant, thread_id: MANIFEST_THREAD }, [lifecycleEnvelope('manifest.activated', by, to, { from, to, rollback })]);
      return { from, to };
    }
  }
  throw new ManifestLifecycleError('conflict', `the active version of tenant "${tenant}" kept changing; try again`);
}

/** A tenant's published versions, in publish order, with the active one marked. */
export async function listManifests(store: Store, tenant: string): Promise<Array<{ version: string; hash: string; published_at: string; published_by: string; active: boolean }>> {
  const [entries, pointer] = await Promise.all([store.listIndex(manifestIndex(tenant), { limit: 1000 }), loadActivePointer(store, tenant)]);
  const published = await Promise.all(entries.map((e) => loadPublished(store, tenant, e.member)));
  return published.flatMap((p) => (p ? [{ version: p.manifest.version, hash: p.hash, published_at: p.published_at, published_by: p.published_by, active: p.manifest.version === pointer?.version }] : []));
}

function lifecycleEnvelope(type: 'manifest.published' | 'manifest.activated', by: string, version: string, data: JsonObject) {
  return { type, call_id: null, tool: null, principal: by, args_hash: null, manifest_version: version, data };
}
