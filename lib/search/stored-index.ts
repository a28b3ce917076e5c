import type { Store } from '../stores/store.ts';
import { DamagedRecordError, isPartsHead, readParts, writeParts } from '../stores/text-parts.ts';
import { SEARCH_INDEX_FORMAT, type PackedSearchIndex } from './bm25-index.ts';

export { PART_CHARS } from '../stores/text-parts.ts';

/**
 * A manifest version's search index in the store, next to the version it indexes: a head record
 * `search-index/<tenant>/<version>` naming its format and its parts, and the index's JSON text
 * cut into parts `search-index/<tenant>/<version>/<i>` (lib/stores/text-parts.ts: each fits a
 * DynamoDB item). A 10,000-tool index is about 2.4 MB: 27 parts, read in parallel.
 */
const part = (value: string) => encodeURIComponent(value);
export const searchIndexKey = (tenant: string, version: string) => `search-index/${part(tenant)}/${part(version)}`;
const PART_STATE = 'search-index-part';

/** Writes the index of a version (parts first, then the head: a reader that finds the head finds every part). */
export async function saveSearchIndex(store: Store, tenant: string, version: string, index: PackedSearchIndex): Promise<{ parts: number; chars: number }> {
  const head = await writeParts(store, searchIndexKey(tenant, version), PART_STATE, JSON.stringify(index));
  await store.put(searchIndexKey(tenant, version), { state: 'search-index', expires_at: 0, data: { format: SEARCH_INDEX_FORMAT, ...head } });
  return { parts: head.parts, chars: head.chars };
}

/** Whether a version's index is stored (publishing the same version again need not rebuild it). */
export async function hasSearchIndex(store: Store, tenant: string, version: string): Promise<boolean> {
  return (await store.get(searchIndexKey(tenant, version)))?.data.format === SEARCH_INDEX_FORMAT;
}

/**
 * The stored index's JSON text, or undefined when none is stored in this format or a part is
 * missing or not what the head says (the caller then builds the index itself).
 */
export async function loadSearchIndexText(store: Store, tenant: string, version: string): Promise<string | undefined> {
  const head = (await store.get(searchIndexKey(tenant, version)))?.data;
  if (head?.format !== SEARCH_INDEX_FORMAT || !isPartsHead(head)) return undefined;
  try {
    return await readParts(store, searchIndexKey(tenant, version), PART_STATE, head, 'the search index');
  } catch (error) {
    if (error instanceof DamagedRecordError) return undefined;
    throw error;
  }
}
