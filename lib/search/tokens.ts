/**
 * Words for the tool search index and its queries: lower case, split on anything that is not a
 * letter or digit and at camelCase humps (`listIssues` → list, issue), plural endings folded so
 * "issues" finds `list_issue` and "repositories" finds `repository`, and common English words
 * dropped (a query is often a sentence: "find the tool that ..."). Bounded: words longer than
 * MAX_WORD_LENGTH are dropped and at most `max` words are kept, so neither a long description
 * nor a hostile query costs more than linear time in a bounded length.
 */
export const MAX_WORD_LENGTH = 40;

const STOP_WORDS = new Set(
  'a an and are as at be by can do for from how i if in into is it its me my of on or our so that the their them then there these this to too use used uses using want was we what when where which while who will with would you your'.split(' '),
);

/** Folds the common English plural endings (not a full stemmer: a search over names needs only these). */
export function foldPlural(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/** The searchable words of `text`, in order (repeats kept: they are term frequencies). */
export function searchWords(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const words: string[] = [];
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (words.length >= max) break;
    if (raw.length === 0 || raw.length > MAX_WORD_LENGTH || STOP_WORDS.has(raw)) continue;
    words.push(foldPlural(raw));
  }
  return words;
}
