import { searchWords } from './tokens.ts';

/**
 * BM25F (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009,
 * §3.5): each field's words count `weight` times in the document's term frequency, then Okapi
 * BM25 with k1 = 1.2, b = 0.75. Hand-written because no npm library met the budgets at 10,000
 * tools (MiniSearch: p99 12-17 ms, cold load ~200 ms; flexsearch: p99 ~4 ms and not BM25).
 *
 * The index is built at publish and stored as JSON (PackedSearchIndex): the vocabulary as one
 * sorted string and the postings as flat number arrays, which JSON.parse reads fastest, so a
 * new isolate loads it in milliseconds instead of rebuilding it.
 */
export const SEARCH_INDEX_FORMAT = 'toolgate.search/v1';

/** What of a tool is searched, and how much each field's words count. */
export interface SearchDocument {
  name: string;
  description: string;
  tags: readonly string[];
  argumentNames: readonly string[];
}

const FIELD_WEIGHTS = { name: 3, tags: 2, argumentNames: 1, description: 1 } as const;
/** A description's words past this many add nothing to finding the tool, only to the index's size. */
const MAX_DESCRIPTION_WORDS = 300;
const MAX_DESCRIPTION_CHARS = 4000;
const K1 = 1.2;
const B = 0.75;

export interface PackedSearchIndex {
  format: typeof SEARCH_INDEX_FORMAT;
  /** The tools, in manifest order: document i is names[i]. */
  names: string[];
  /** Weighted document lengths. */
  lengths: number[];
  /** The terms, sorted, joined by spaces (terms never contain one). */
  vocab: string;
  /** Term t's postings are docs[offsets[t]..offsets[t+1]), with weighted frequencies tfs[...]. */
  offsets: number[];
  docs: number[];
  tfs: number[];
}

function weightedTerms(doc: SearchDocument): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (words: string[], weight: number) => {
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + weight);
  };
  add(searchWords(doc.name), FIELD_WEIGHTS.name);
  add(searchWords(doc.tags.join(' ')), FIELD_WEIGHTS.tags);
  add(searchWords(doc.argumentNames.join(' ')), FIELD_WEIGHTS.argumentNames);
  add(searchWords(doc.description.slice(0, MAX_DESCRIPTION_CHARS), MAX_DESCRIPTION_WORDS), FIELD_WEIGHTS.description);
  return counts;
}

/** Builds the packed index of `documents` (publish time: about 30 ms per 1,000 tools). */
export function buildSearchIndex(documents: readonly SearchDocument[]): PackedSearchIndex {
  const postings = new Map<string, number[]>();
  const lengths: number[] = [];
  documents.forEach((doc, id) => {
    let length = 0;
    for (const [term, tf] of weightedTerms(doc)) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(id, tf);
      length += tf;
    }
    lengths.push(length);
  });
  const terms = [...postings.keys()].sort();
  const offsets = [0];
  const docs: number[] = [];
  const tfs: number[] = [];
  for (const term of terms) {
    const list = postings.get(term) ?? [];
    for (let j = 0; j < list.length; j += 2) {
      docs.push(list[j]);
      tfs.push(list[j + 1]);
    }
    offsets.push(docs.length);
  }
  return { format: SEARCH_INDEX_FORMAT, names: documents.map((d) => d.name), lengths, vocab: terms.join(' '), offsets, docs, tfs };
}

export interface SearchHit {
  /** The document's position (manifest order). */
  id: number;
  name: string;
  score: number;
}

/** A loaded index, ready to search; one per isolate and manifest version. */
export class SearchIndex {
  readonly names: readonly string[];
  readonly #packed: PackedSearchIndex;
  readonly #terms: string[];
  readonly #average: number;
  readonly #scores: Float64Array;
  readonly #touched: Int32Array;

  constructor(packed: PackedSearchIndex) {
    this.#packed = packed;
    this.names = packed.names;
    this.#terms = packed.vocab === '' ? [] : packed.vocab.split(' ');
    const total = packed.lengths.reduce((sum, length) => sum + length, 0);
    this.#average = packed.lengths.length === 0 ? 1 : Math.max(1, total / packed.lengths.length);
    this.#scores = new Float64Array(packed.names.length);
    this.#touched = new Int32Array(packed.names.length);
  }

  /**
   * The best `limit` documents for `query` among those `visible` allows (tested while scoring,
   * before the top is chosen, so a caller gets `limit` of the tools it may see, not fewer), best
   * first; equal scores keep manifest order. Documents matching no query word are not hits.
   */
  search(query: string, limit: number, visible: (id: number) => boolean, maxQueryWords = 32): SearchHit[] {
    const { lengths, offsets, docs, tfs } = this.#packed;
    const scores = this.#scores;
    const touched = this.#touched;
    const count = this.names.length;
    let touchedCount = 0;
    for (const term of new Set(searchWords(query, maxQueryWords))) {
      const at = this.#find(term);
      if (at < 0) continue;
      const from = offsets[at];
      const to = offsets[at + 1];
      const idf = Math.log(1 + (count - (to - from) + 0.5) / (to - from + 0.5));
      for (let j = from; j < to; j++) {
        const id = docs[j];
        if (!visible(id)) continue;
        const tf = tfs[j];
        if (scores[id] === 0) touched[touchedCount++] = id;
        scores[id] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[id]) / this.#average));
      }
    }
    const top: SearchHit[] = [];
    for (let j = 0; j < touchedCount; j++) {
      const id = touched[j];
      const score = scores[id];
      scores[id] = 0;
      if (limit < 1 || (top.length === limit && !better(score, id, top[limit - 1]))) continue;
      // Insertion into the sorted top: at most `limit` moves (limits are small).
      const hit = { id, name: this.names[id], score };
      let at = top.length === limit ? limit - 1 : top.push(hit) - 1;
      while (at > 0 && better(score, id, top[at - 1])) {
        top[at] = top[at - 1];
        at--;
      }
      top[at] = hit;
    }
    return top;
  }

  #find(term: string): number {
    const terms = this.#terms;
    let low = 0;
    let high = terms.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const candidate = terms[middle];
      if (candidate === term) return middle;
      if (candidate < term) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }
}

const better = (score: number, id: number, than: SearchHit) => score > than.score || (score === than.score && id < than.id);

/**
 * The index a store gave back, when it is one this code wrote: every array the right length
 * and every posting naming a document that exists (a damaged record must not make search read
 * past its arrays); otherwise undefined, and the caller builds the index itself.
 */
export function readPackedIndex(text: string): PackedSearchIndex | undefined {
  let value: Partial<PackedSearchIndex>;
  try {
    value = JSON.parse(text) as Partial<PackedSearchIndex>;
  } catch {
    return undefined;
  }
  const { format, names, lengths, vocab, offsets, docs, tfs } = value;
  if (format !== SEARCH_INDEX_FORMAT || typeof vocab !== 'string') return undefined;
  if (![names, lengths, offsets, docs, tfs].every(Array.isArray)) return undefined;
  const packed = value as PackedSearchIndex;
  const terms = vocab === '' ? 0 : vocab.split(' ').length;
  if (packed.lengths.length !== packed.names.length || packed.offsets.length !== terms + 1 || packed.docs.length !== packed.tfs.length) return undefined;
  if (packed.offsets[0] !== 0 || packed.offsets[terms] !== packed.docs.length) return undefined;
  if (!packed.names.every((name) => typeof name === 'string')) return undefined;
  const count = packed.names.length;
  for (let t = 0; t < terms; t++) if (!(packed.offsets[t] <= packed.offsets[t + 1])) return undefined;
  for (let j = 0; j < packed.docs.length; j++) {
    const id = packed.docs[j];
    if (!(Number.isInteger(id) && id >= 0 && id < count && packed.tfs[j] > 0)) return undefined;
  }
  if (!packed.lengths.every((length) => typeof length === 'number' && length >= 0)) return undefined;
  return packed;
}
