import { describe, expect, it } from 'vitest';
import { buildSearchIndex, readPackedIndex, SearchIndex, type SearchDocument } from '../../lib/search/bm25-index.ts';
import { foldPlural, searchWords } from '../../lib/search/tokens.ts';

const doc = (name: string, description = '', extra: Partial<SearchDocument> = {}): SearchDocument => ({ name, description, tags: [], argumentNames: [], ...extra });
const all = () => true;
const names = (index: SearchIndex, query: string, limit = 10, visible: (id: number) => boolean = all) => index.search(query, limit, visible).map((hit) => hit.name);

describe('search words', () => {
  it('splits names at underscores, dashes and camelCase humps, folds plurals and drops common words', () => {
    expect(searchWords('listPullRequests')).toEqual(['list', 'pull', 'request']);
    expect(searchWords('API-get-block-children')).toEqual(['api', 'get', 'block', 'children']);
    expect(searchWords('Find the repositories of a user')).toEqual(['find', 'repository', 'user']);
    expect(['issues', 'address', 'status', 'analysis', 'classes'].map(foldPlural)).toEqual(['issue', 'address', 'status', 'analysis', 'class']);
  });

  it('is bounded: over-long words are dropped and at most `max` words kept', () => {
    expect(searchWords(`${'a'.repeat(41)} kept`)).toEqual(['kept']);
    expect(searchWords('one two three four', 2)).toEqual(['one', 'two']);
  });
});

describe('BM25F ranking', () => {
  it('scores as Okapi BM25 with the field weights folded into term frequency (hand-computed)', () => {
    // "alpha" is in doc 0's name (weight 3) and doc 1's description (weight 1). N = 3, df = 2:
    // idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)). Lengths: 3 (alpha ×3), 4 (beta ×3 + alpha), 3 (gamma ×3): avg 10/3.
    const index = new SearchIndex(buildSearchIndex([doc('alpha'), doc('beta', 'alpha'), doc('gamma')]));
    const [first, second] = index.search('alpha', 5, all);
    const idf = Math.log(1 + 1.5 / 2.5);
    const bm25 = (tf: number, length: number) => (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * length) / (10 / 3)));
    expect(second.name).toBe('beta');
    expect(second.score).toBeCloseTo(bm25(1, 4), 12);
    const hit = first;
    const expected = bm25(3, 3);
    expect(hit.name).toBe('alpha');
    expect(hit.score).toBeCloseTo(expected, 12);
  });

  it('ranks the tool whose name says it above one that only mentions it, and rarer words above common ones', () => {
    const index = new SearchIndex(
      buildSearchIndex([
        doc('send_email', 'Send a message to an address'),
        doc('list_issues', 'List issues; each issue may link an email thread'),
        doc('create_issue', 'Create an issue in a repository'),
        doc('get_weather', 'Weather for a city', { argumentNames: ['city'] }),
      ]),
    );
    expect(names(index, 'email')[0]).toBe('send_email');
    expect(names(index, 'create a new issue')[0]).toBe('create_issue');
    expect(names(index, 'issues')).toEqual(expect.arrayContaining(['list_issues', 'create_issue']));
    expect(names(index, 'list the issues')[0]).toBe('list_issues');
    expect(names(index, 'city')).toEqual(['get_weather']);
    expect(names(index, 'the of and')).toEqual([]);
    expect(names(index, 'nothing-like-this')).toEqual([]);
  });

  it('keeps manifest order between equal scores, and returns at most `limit`', () => {
    const index = new SearchIndex(buildSearchIndex([doc('tool_two', 'same words'), doc('tool_one', 'same words'), doc('tool_six', 'same words')]));
    expect(names(index, 'same words')).toEqual(['tool_two', 'tool_one', 'tool_six']);
    expect(names(index, 'same words', 2)).toEqual(['tool_two', 'tool_one']);
  });

  it('filters while scoring: a caller gets `limit` of the tools it may see, never a hidden one', () => {
    const documents = Array.from({ length: 20 }, (_, i) => doc(`ticket_${i}`, 'open a support ticket'));
    const index = new SearchIndex(buildSearchIndex(documents));
    const even = (id: number) => id % 2 === 0;
    const found = names(index, 'support ticket', 5, even);
    expect(found).toEqual(['ticket_0', 'ticket_2', 'ticket_4', 'ticket_6', 'ticket_8']);
  });

  it('reads back what it wrote, and refuses a damaged stored index rather than reading past its arrays', () => {
    const packed = buildSearchIndex([doc('alpha', 'one two'), doc('beta', 'two three')]);
    const text = JSON.stringify(packed);
    expect(readPackedIndex(text)).toEqual(packed);
    const damaged = [
      { ...packed, docs: packed.docs.map((id) => id + 5) },
      { ...packed, offsets: packed.offsets.slice(1) },
      { ...packed, lengths: [1] },
      { ...packed, format: 'other' },
      { ...packed, tfs: packed.tfs.map(() => -1) },
    ];
    for (const value of damaged) expect(readPackedIndex(JSON.stringify(value))).toBeUndefined();
    expect(readPackedIndex('{not json')).toBeUndefined();
  });
});
