import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nameWarnings } from '../../lib/governance/confusable-names.ts';
import { samePerson } from '../../lib/governance/four-eyes.ts';
import { principalIdentity, samePrincipal } from '../../lib/governance/principal-identity.ts';

/**
 * Principal names as four-eyes compares them: a fixed point of NFKC, full case folding, invisible
 * characters removed and NFKC again; what marks a name as confusable; and who counts as one person
 * across minted keys.
 */
const hasPython = existsSync('/usr/bin/python3');

describe('principalIdentity', () => {
  it.each([
    ['josé', 'jose\u200d\u0301', 'a joiner between a letter and its mark'],
    ['josé', 'jose\u0301', 'composed and decomposed'],
    ['e\u0323\u0301', 'e\u0301\u0323', 'marks in either order'],
    ['Straße', 'STRASSE', 'ß folds to ss'],
    ['ẞ', 'ss', 'capital sharp s folds twice, to ss'],
    ['ΟΔΟΣ', 'οδοσ', 'final and medial sigma'],
    ['σ', 'ς', 'a lone final sigma'],
    ['İ', 'i\u0307', 'Turkish capital dotted I folds to i and a combining dot'],
    ['ᏣᎳᎩ', 'ꮳꮃꭹ', 'Cherokee capitals and small letters'],
    ['ａｌｉｃｅ', 'ALICE', 'fullwidth'],
    ['ᾳ', 'ΑΙ', 'Greek iota subscript'],
    ['ǅ', 'DŽ', 'titlecase digraph'],
    ['ﬃ', 'FFI', 'ligature'],
    ['\u212a', 'k', 'Kelvin sign'],
    ['ᲐᲑᲒ', 'აბგ', 'Georgian Mtavruli and Mkhedruli'],
    ['al\u3164ice', 'alice', 'a Hangul filler'],
    ['al\u034fice', 'alice', 'a combining grapheme joiner'],
    ['ali\u200bce', 'alice', 'a zero-width space'],
    ['a\u2800lice', 'alice', 'the blank Braille pattern'],
    ['  Alice \t Smith ', 'alice smith', 'whitespace collapsed'],
  ])('%s and %s are one person (%s)', (a, b) => {
    expect(principalIdentity(a)).toBe(principalIdentity(b));
  });

  it.each([
    ['İ', 'i', 'no Turkic folding of dotted capital I'],
    ['alice', '\u0430lice', 'Cyrillic a'],
    ['bob', 'bób', 'a mark is a letter of the name'],
  ])('%s and %s stay two people (%s)', (a, b) => {
    expect(samePrincipal(a, b)).toBe(false);
  });

  it('is a fixed point: normalising a normalised name changes nothing', () => {
    for (const name of ['jose\u200d\u0301', 'ẞ', 'STRAẞE', 'ΐ', 'ǰ', '\u0345', 'x\u200d\u0308\u0301y', 'ﬀ\u200bİ']) {
      const once = principalIdentity(name);
      expect(principalIdentity(once)).toBe(once);
    }
  });

  it("equates every letter with its simple case folding (JavaScript's /iu, all of Unicode)", () => {
    const missed: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      const others = new Set([char.toLowerCase(), char.toUpperCase()].filter((other) => other !== char && [...other].length === 1));
      if (others.size === 0) continue; // uncased: no pair to check (and compiling 1.1 million patterns is slow)
      const same = new RegExp(`^\\u{${cp.toString(16)}}$`, 'iu');
      for (const other of others) {
        if (same.test(other) && !samePrincipal(char, other)) missed.push(`U+${cp.toString(16)}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it.skipIf(!hasPython)("equates every character with its full case folding (Python's str.casefold, the UCD's CaseFolding C and F)", () => {
    const script = 'import json,unicodedata\nprint(json.dumps([[c, c.casefold()] for c in map(chr, range(0x110000)) if not 0xd800 <= ord(c) <= 0xdfff and unicodedata.category(c) != "Cn" and c.casefold() != c]))';
    const run = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
    const pairs = JSON.parse(run.stdout) as Array<[string, string]>;
    expect(pairs.length).toBeGreaterThan(1400);
    expect(pairs.filter(([char, folded]) => !samePrincipal(char, folded) || !samePrincipal(`ab${char}cd`, `ab${folded}cd`))).toEqual([]);
  });
});

describe('nameWarnings', () => {
  it.each([
    ['alice', []],
    ['josé', []],
    ['Straße', []],
    ['田中たろう', []],
    ['김철수', []],
    ['Ελένη', []],
    ['ᏣᎳᎩ', ['uncommon_characters']],
    ['ａｌｉｃｅ', []],
    ['\u0430lice', ['mixed_scripts']],
    ['Eλένη', ['mixed_scripts']],
    ['al\u3164ice', ['invisible']],
    ['al\u034fice', ['invisible']],
    ['jose\u200d\u0301', ['invisible']],
    ['ali\ue000', ['uncommon_characters']],
    ['user-١٢٣', ['mixed_scripts']],
    ['محمد', []],
  ])('%s: %j', (name, warnings) => {
    expect(nameWarnings(name)).toEqual(warnings);
  });
});

describe('samePerson', () => {
  const requester = { name: 'helper', lineage: ['agent', 'ops'] };
  it('by default a key and the principals it was minted under are one person, siblings are not', () => {
    expect(samePerson({ name: 'agent' }, requester)).toBe(true);
    expect(samePerson(requester, { name: 'OPS' })).toBe(true);
    expect(samePerson({ name: 'sibling', lineage: ['agent'] }, requester)).toBe(false);
    expect(samePerson({ name: 'alice' }, requester)).toBe(false);
  });
  it('with same_person_as_creator true, keys minted by one principal are one person too', () => {
    expect(samePerson({ name: 'sibling', lineage: ['agent'] }, requester, { same_person_as_creator: true })).toBe(true);
    expect(samePerson({ name: 'alice' }, requester, { same_person_as_creator: true })).toBe(false);
  });
  it('with same_person_as_creator false, only names count', () => {
    expect(samePerson({ name: 'agent' }, requester, { same_person_as_creator: false })).toBe(false);
    expect(samePerson({ name: 'Helper' }, requester, { same_person_as_creator: false })).toBe(true);
  });
});
