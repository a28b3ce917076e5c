import type { AuditRecorder } from '../../audit/recorder.ts';
import { hashJson } from '../../idempotency/canonical-json.ts';
import type { JsonObject } from '../json.ts';
import type { Store } from '../../stores/store.ts';
import { DamagedRecordError, isPartsHead, PART_CHARS, readParts, removeParts, writeParts, type PartsHead } from '../../stores/text-parts.ts';
import type { Manifest } from './manifest.ts';
import { MANIFEST_CHECKS } from './checks.ts';

/**
 * A tenant's manifests in the store: every published version immutable (`manifest/<tenant>/<v>`),
 * listed in publish order (index `manifests/<tenant>`), and one active version: a pointer record
 * whose `owner` is the active version, so activation is a compare-and-set on it. A manifest whose
 * JSON is longer than one part (a large catalog: 10,000 tools are about 13 MB) is kept in parts
 * (lib/stores/text-parts.ts) under `manifest-part/<tenant>/<v>/<hash>/<i>`, written before the
 * version's record, which then holds their head (`parts`) instead of the manifest. The hash in
 * the key keeps two publishers of one version with different content off each other's parts.
 */
const part = (value: string) => encodeURIComponent(value);
export const manifestKey = (tenant: string, version: string) => `manifest/${part(tenant)}/${part(version)}`;
export const manifestPartsPrefix = (tenant: string, version: string, hash: string) => `manifest-part/${part(tenant)}/${part(version)}/${part(hash)}`;
const PART_STATE = 'manifest-part';
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

/** The version's record as stored: the manifest itself, or the head of its parts. */
type StoredPublished = Omit<PublishedManifest, 'manifest'> & { manifest?: Manifest; parts?: PartsHead };

/** What listing needs of a version, read without its manifest. */
export type PublishedSummary = Omit<PublishedManifest, 'manifest'>;

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

async function loadRecord(store: Store, tenant: string, version: string): Promise<StoredPublished | undefined> {
  return (await store.get(manifestKey(tenant, version)))?.data as unknown as StoredPublished | undefined;
}

/**
 * A published version, whole: from its record, or read back from its parts and checked (a part
 * missing or changed throws DamagedRecordError, a StoreUnavailableError: never half a manifest).
 * A record holding another tenant's or version's manifest (records copied between keys) is
 * refused the same way, so no key serves what another published.
 */
export async function loadPublished(store: Store, tenant: string, version: string): Promise<PublishedManifest | undefined> {
  const record = await loadRecord(store, tenant, version);
  if (!record) return undefined;
  const what = `version ${version} of tenant "${tenant}"`;
  const published = record.parts ? await readPublishedParts(store, tenant, version, record, what) : (record as PublishedManifest);
  const held = published.manifest as Partial<Manifest> | undefined;
  if (held?.tenant !== tenant || held.version !== version) throw new DamagedRecordError(store.name, what, `its record holds ${held ? `version ${String(held.version)} of tenant "${String(held.tenant)}"` : 'no manifest'}`);
  return published;
}

async function readPublishedParts(store: Store, tenant: string, version: string, record: StoredPublished, what: string): Promise<PublishedManifest> {
  const { parts, ...published } = record;
  if (!isPartsHead(parts)) throw new DamagedRecordError(store.name, what, 'its record does not say what its parts are');
  const text = await readParts(store, manifestPartsPrefix(tenant, version, record.hash), PART_STATE, parts, what);
  return { ...published, manifest: JSON.parse(text) as Manifest };
}

/** A published version's record without its manifest (its parts are not read). */
export async function loadPublishedSummary(store: Store, tenant: string, version: string): Promise<PublishedSummary | undefined> {
  const record = await loadRecord(store, tenant, version);
  if (!record) return undefined;
  const { manifest: _manifest, parts: _parts, ...summary } = record;
  return summary;
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
  const summary: PublishedSummary = { hash, published_at: new Date().toISOString(), published_by: by, ...(options.checked ? { checked: MANIFEST_CHECKS } : {}) };
  const text = JSON.stringify(manifest);
  const prefix = manifestPartsPrefix(manifest.tenant, manifest.version, hash);
  const inParts = text.length > PART_CHARS;
  const existingHash = inParts ? (await loadRecord(store, manifest.tenant, manifest.version))?.hash : undefined;
  // Republishing the same large version writes no parts again (a record that exists is kept anyway).
  if (existingHash === hash) return { status: 'unchanged', version: manifest.version, hash };
  const stored: StoredPublished = inParts ? { ...summary, parts: await writeParts(store, prefix, PART_STATE, text) } : { ...summary, manifest };
  const claimed = await store.claim(manifestKey(manifest.tenant, manifest.version), { state: 'published', expires_at: 0, data: stored as unknown as JsonObject });
  if (!claimed.claimed) {
    const existing = claimed.existing.data as unknown as StoredPublished;
    if (existing.hash === hash) return { status: 'unchanged', version: manifest.version, hash };
    if (stored.parts) await removeParts(store, prefix, PART_STATE, stored.parts);
    throw new ManifestLifecycleError('conflict', `version ${manifest.version} of tenant "${manifest.tenant}" is already published with other content; versions are immutable: publish under a new version`);
  }
  await store.addToIndex(manifestIndex(manifest.tenant), manifest.version, Date.now() * 1000 + Math.floor(Math.random() * 1000));
  await audit.record({ tenant: manifest.tenant, thread_id: MANIFEST_THREAD }, [lifecycleEnvelope('manifest.published', by, manifest.version, { version: manifest.version, hash })]);
  return { status: 'published', version: manifest.version, hash };
}

/** Makes `version` the active one (atomically; audited). `rollback` marks a return to the previous version. */
export async function activateManifest(store: Store, audit: AuditRecorder, tenant: string, version: string, by: string): Promise<{ from: string | null; to: string }> {
  // Read whole: a version whose parts are damaged is refused here, not by every isolate that would serve it.
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
  const published = await Promise.all(entries.map(async (e) => ({ version: e.member, summary: await loadPublishedSummary(store, tenant, e.member) })));
  return published.flatMap(({ version, summary: p }) => (p ? [{ version, hash: p.hash, published_at: p.published_at, published_by: p.published_by, active: version === pointer?.version }] : []));
}

function lifecycleEnvelope(type: 'manifest.published' | 'manifest.activated', by: string, version: string, data: JsonObject) {
  return { type, call_id: null, tool: null, principal: by, args_hash: null, manifest_version: version, data };
}
