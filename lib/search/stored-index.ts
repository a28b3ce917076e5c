import type { Store } from '../stores/store.ts';
import { SEARCH_INDEX_FORMAT, type PackedSearchIndex } from './bm25-index.ts';

/**
 * A manifest version's search index in the store, next to the version it indexes: a head record
 * `search-index/<tenant>/<version>` naming how many parts follow, and the index's JSON text cut
 * into parts `search-index/<tenant>/<version>/<i>`. Parts keep every store's record small: a
 * DynamoDB item holds at most 400 KB (and dynamodb-json.ts refuses more than 380 KiB gzipped),
 * an Upstash request 1 MB on the free plan. PART_CHARS characters are at most 4 bytes each in
 * UTF-8, 360 KB, so a part fits even uncompressed. A 10,000-tool index is about 2.4 MB: 27 parts,
 * read in parallel.
 */
export const PART_CHARS = 90_000;

const part = (value: string) => encodeURIComponent(value);
export const searchIndexKey = (tenant: string, version: string) => `search-index/${part(tenant)}/${part(version)}`;
const partKey = (tenant: string, version: string, index: number) => `${searchIndexKey(tenant, version)}/${index}`;

interface IndexHead {
  format: string;
  parts: number;
  chars: number;
}

/** Writes the index of a version (parts first, then the head: a reader that finds the head finds every part). */
export async function saveSearchIndex(store: Store, tenant: string, version: string, index: PackedSearchIndex): Promise<{ parts: number; chars: number }> {
  const text = JSON.stringify(index);
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += PART_CHARS) parts.push(text.slice(at, at + PART_CHARS));
  await Promise.all(parts.map((chunk, i) => store.put(partKey(tenant, version, i), { state: 'search-index-part', expires_at: 0, data: { text: chunk } })));
  const head: IndexHead = { format: SEARCH_INDEX_FORMAT, parts: parts.length, chars: text.length };
  await store.put(searchIndexKey(tenant, version), { state: 'search-index', expires_at: 0, data: { ...head } });
  return { parts: parts.length, chars: text.length };
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
  const head = (await store.get(searchIndexKey(tenant, version)))?.data as Partial<IndexHead> | undefined;
  if (head?.format !== SEARCH_INDEX_FORMAT || !Number.isSafeInteger(head.parts) || !Number.isSafeInteger(head.chars)) return undefined;
  const count = head.parts as number;
  if (count < 1 || count > 10_000) return undefined;
  const records = await Promise.all(Array.from({ length: count }, (_, i) => store.get(partKey(tenant, version, i))));
  const texts = records.map((record) => record?.data.text);
  if (!texts.every((text): text is string => typeof text === 'string')) return undefined;
  const text = texts.join('');
  return text.length === head.chars ? text : undefined;
}
