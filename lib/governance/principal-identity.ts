/**
 * Which person a principal name stands for, as far as approvals count people. Names come from
 * key records, token claims (whatever claim the tenant names) and Slack mappings, so "alice",
 * "Alice", "alice ", a full-width "ａｌｉｃｅ", "josé" and "jose" + U+200D + U+0301 would
 * otherwise be different approvers, or a requester approving their own call under another
 * spelling. Two names are one person when they reach the same fixed point of: NFKC, full case
 * folding, invisible characters removed, whitespace collapsed, NFKC again (removing a joiner can
 * bring a mark next to its letter, and folding "ẞ" gives "ß", which folds again to "ss"). Taking
 * two names as one person can only refuse a decision, never allow one.
 *
 * Case folding is `toUpperCase().toLowerCase()` (locale-free), repeated with the rest until
 * stable: it equates everything Unicode's full case folding (CaseFolding.txt, C and F) equates
 * (ß/ẞ/SS, Σ/σ/ς, ᾳ/ΑΙ, Cherokee, Georgian Mtavruli), and a little more: dotless "ı" and "i" are
 * one, as Turkic folding would have them. No npm case-folding table fits the Worker's size budget.
 */

/** Default_Ignorable_Code_Point (joiners, U+034F, Hangul fillers, variation selectors), format and control characters, and the blank Braille pattern. */
export const INVISIBLE = /[\p{DI}\p{Cf}\p{Cc}\u2800]/gu;

/** Rounds of normalisation at most; real names settle in two or three. */
const MAX_ROUNDS = 8;

function normaliseOnce(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim().normalize('NFKC');
}

export function principalIdentity(name: string): string {
  let current = name;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = normaliseOnce(current);
    if (next === current) return current;
    current = next;
  }
  return current;
}

export const samePrincipal = (a: string, b: string) => principalIdentity(a) === principalIdentity(b);
