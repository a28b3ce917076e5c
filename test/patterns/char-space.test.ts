/**
 * The catastrophic check compares character sets; it must never find two sets exclusive when
 * they share a character (a catastrophic pattern would pass). Checked against the runtime's
 * own RegExp on every code point, for atoms of every kind, with and without `i`.
 */
import type { AST } from '@eslint-community/regexpp';
import { describe, expect, it } from 'vitest';
import { SPACES } from '../../lib/patterns/char-ranges.ts';
import { CharSpace } from '../../lib/patterns/char-space.ts';
import type { CharAtom } from '../../lib/patterns/char-test.ts';
import { parsePattern } from '../../lib/patterns/parse.ts';

const ATOMS = [
  'a', 'A', 'z', 'é', 'É', 'k', 'K', '\\u212a', 'ſ', 's', 'ß', '\\u1e9e', '-', ' ', '"', '\\\\', '0', '٣', '😀', '\\u{10FFFF}', '\\uD800', '\\n',
  '.', '\\s', '\\S', '\\w', '\\W', '\\d', '\\D', '[a-z]', '[A-Z]', '[^a-z]', '[^"\\\\]', '[\\w-]', '[\\u0100-\\u01ff]', '[\\uD800-\\uDFFF]', '[^\\s\\d]',
  '\\p{L}', '\\p{Lu}', '\\p{Ll}', '\\P{L}', '\\p{Script=Greek}', '\\p{sc=Grek}', '\\p{Script=Georgian}', '[\\p{L}0-9_]', '[^\\p{L}]', '[\\p{Lu}a]',
  '\\p{Nd}', '[\\p{Zs}\\t]', '\\p{Any}', '[^\\P{Lu}]', '\\p{Alphabetic}', '[\\p{Ll}A-C]', '\\p{Lt}', '[\\p{N}\\s]',
];

/** Every code point, surrogates apart (two would pair up), as one string. */
function allCodePoints(): string {
  const parts: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) parts.push(String.fromCodePoint(c));
  return parts.join('');
}

/** Which code points `atom` matches, per JavaScript: one bit each. */
function members(raw: string, flags: string, text: string): Uint32Array {
  const bits = new Uint32Array(0x110000 / 32);
  const mark = (c: number) => (bits[c >>> 5] |= 1 << (c & 31));
  for (const match of text.matchAll(new RegExp(raw, `${flags}g`))) mark(match[0].codePointAt(0) as number);
  const alone = new RegExp(`^(?:${raw})$`, flags);
  for (let c = 0xd800; c <= 0xdfff; c++) if (alone.test(String.fromCharCode(c))) mark(c);
  return bits;
}

const share = (a: Uint32Array, b: Uint32Array) => a.some((word, i) => (word & b[i]) !== 0);

function space(flags: string) {
  const parsed = parsePattern(`(?:${ATOMS.join('|')})`, flags);
  const group = parsed.ast.alternatives[0].elements[0] as AST.Group;
  const atoms = group.alternatives.map((alternative) => alternative.elements[0] as CharAtom);
  const charSpace = new CharSpace(atoms, parsed.flags, 10_000);
  return { atoms, charSpace };
}

describe('CharSpace: overlap of character sets', () => {
  const text = allCodePoints();

  for (const flags of ['u', 'iu', 'su']) {
    it(`never calls two sets exclusive when JavaScript finds a character in both (${flags}, ${ATOMS.length} atoms, every pair)`, () => {
      const { atoms, charSpace } = space(flags);
      const truth = atoms.map((atom) => members(atom.raw, flags, text));
      let overlapping = 0;
      for (let i = 0; i < atoms.length; i++) {
        for (let j = i; j < atoms.length; j++) {
          if (!share(truth[i], truth[j])) continue;
          overlapping++;
          expect(charSpace.overlaps(charSpace.atom(atoms[i]), charSpace.atom(atoms[j])), `${atoms[i].raw} and ${atoms[j].raw} share a character`).toBe(true);
        }
      }
      expect(overlapping).toBeGreaterThan(500);
    }, 120_000);
  }

  it('keeps unions sound: a set built from two atoms meets every atom either of them meets (u, every triple)', () => {
    const { atoms, charSpace } = space('u');
    const truth = atoms.map((atom) => members(atom.raw, 'u', text));
    const sets = atoms.map((atom) => charSpace.atom(atom));
    const shared = truth.map((a) => truth.map((b) => share(a, b)));
    let checked = 0;
    for (let i = 0; i < atoms.length; i++) {
      for (let j = i + 1; j < atoms.length; j++) {
        const union = charSpace.union(sets[i], sets[j]);
        for (let k = 0; k < atoms.length; k++) {
          if (!shared[i][k] && !shared[j][k]) continue;
          checked++;
          if (!charSpace.overlaps(union, sets[k]) || !charSpace.overlaps(sets[k], union)) expect.fail(`${atoms[i].raw}|${atoms[j].raw} and ${atoms[k].raw} share a character`);
        }
      }
    }
    expect(checked).toBeGreaterThan(20_000);
  }, 120_000);

  it('tells exclusive sets apart: ranges, property escapes against small ranges, General_Category values', () => {
    const { atoms, charSpace } = space('u');
    const set = (raw: string) => charSpace.atom(atoms.find((atom) => atom.raw === raw) as CharAtom);
    const exclusive = [
      ['[a-z]', '-'], ['[^"\\\\]', '"'], ['[^"\\\\]', '\\\\'], ['\\d', '\\s'], ['\\w', ' '], ['.', '\\n'], ['[a-z]', '[A-Z]'],
      ['\\p{L}', '-'], ['\\p{L}', ' '], ['\\p{L}', '\\s'], ['\\p{L}', '0'], ['[\\p{L}0-9_]', '-'],
      ['\\p{Lu}', '\\p{Ll}'], ['\\p{L}', '\\P{L}'], ['\\p{L}', '[^\\p{L}]'], ['\\p{Nd}', '\\p{L}'], ['\\p{Lt}', '\\p{Lu}'], ['[^\\P{Lu}]', '\\p{Ll}'],
    ];
    for (const [a, b] of exclusive) expect(charSpace.overlaps(set(a), set(b)), `${a} and ${b}`).toBe(false);
    // Two property escapes it cannot compare are taken to overlap: unsure means refused.
    expect(charSpace.overlaps(set('\\p{Script=Greek}'), set('\\p{Script=Georgian}'))).toBe(true);
    expect(charSpace.overlaps(set('\\p{Alphabetic}'), set('\\p{Nd}'))).toBe(true);
  });

  it('knows \\s as the runtime does (its list is written out)', () => {
    const listed = new Set<number>();
    for (let i = 0; i < SPACES.length; i += 2) for (let c = SPACES[i]; c <= SPACES[i + 1]; c++) listed.add(c);
    const runtime = [...allCodePoints().matchAll(/\s/gu)].map((match) => match[0].codePointAt(0));
    expect(runtime).toEqual([...listed]);
  });
});
