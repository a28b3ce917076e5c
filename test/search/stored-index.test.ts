import { describe, expect, it } from 'vitest';
import { buildSearchIndex, readPackedIndex } from '../../lib/search/bm25-index.ts';
import { loadSearchIndexText, PART_CHARS, saveSearchIndex, searchIndexKey } from '../../lib/search/stored-index.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';

/** An index larger than one part: every store item stays small, and a part that is missing or changed is no index at all. */
describe('a stored search index', () => {
  const documents = Array.from({ length: 1500 }, (_, i) => ({ name: `tool_${i}`, description: `Does thing number ${i} with widget w${i * 7919}`, tags: [`team${i % 13}`], argumentNames: ['id', `field${i}`] }));
  const packed = buildSearchIndex(documents);

  it('is cut into parts of at most PART_CHARS characters and reads back whole', async () => {
    const store = new MemoryStore();
    const saved = await saveSearchIndex(store, 'acme', '1', packed);
    expect(saved.parts).toBe(Math.ceil(JSON.stringify(packed).length / PART_CHARS));
    expect(saved.parts).toBeGreaterThan(1);
    for (let i = 0; i < saved.parts; i++) expect(((await store.get(`${searchIndexKey('acme', '1')}/${i}`))!.data.text as string).length).toBeLessThanOrEqual(PART_CHARS);
    const text = await loadSearchIndexText(store, 'acme', '1');
    expect(readPackedIndex(text!)).toEqual(packed);
    // Another tenant's or version's key reads nothing.
    expect(await loadSearchIndexText(store, 'acme', '2')).toBeUndefined();
    expect(await loadSearchIndexText(store, 'acme%2F1', '1')).toBeUndefined();
  });

  it('is none when a part is missing or not what the head says', async () => {
    const store = new MemoryStore();
    const saved = await saveSearchIndex(store, 'acme', '1', packed);
    const last = `${searchIndexKey('acme', '1')}/${saved.parts - 1}`;
    await store.put(last, { state: 'search-index-part', expires_at: 0, data: { text: 'x' } });
    expect(await loadSearchIndexText(store, 'acme', '1')).toBeUndefined();
    await store.remove(last, { state: 'search-index-part' });
    expect(await loadSearchIndexText(store, 'acme', '1')).toBeUndefined();
    await store.put(searchIndexKey('acme', '1'), { state: 'search-index', expires_at: 0, data: { format: 'toolgate.search/v1', parts: 1e9, chars: 1 } });
    expect(await loadSearchIndexText(store, 'acme', '1')).toBeUndefined();
  });
});
