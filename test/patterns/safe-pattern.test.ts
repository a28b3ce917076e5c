import { describe, expect, it } from 'vitest';
import { compileSafePattern, PatternBudgetError, PatternError } from '../../lib/patterns/index.ts';
import { parsePattern } from '../../lib/patterns/parse.ts';
import { buildProgram } from '../../lib/patterns/program.ts';
import { simulate } from '../../lib/patterns/simulate.ts';

/** A seeded generator, so a failure names a pattern and an input that reproduce it. */
function random(seed: number) {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  return { next, pick: <T>(items: readonly T[]) => items[next(items.length)] };
}

const ATOMS = ['a', 'b', ' ', '1', '.', '\\w', '\\s', '\\d', '\\W', '\\S', '[ab]', '[^a]', '[a-c1]', '\\b', '\\B', '^', '$', 'é', '\\p{L}', '\\p{Nd}', '😀', '\\u{1F600}', '\\n'];
const QUANTIFIERS = ['*', '+', '?', '{2}', '{0,2}', '{1,}', '*?', '+?'];
const ALPHABET = ['a', 'b', 'A', ' ', '1', '٣', 'é', 'É', '\n', '\u2028', '\u00a0', '😀', 'Z', '_', '\ud800'];

function generatePattern(rng: ReturnType<typeof random>, depth: number): string {
  let source = '';
  for (let i = 0, n = 1 + rng.next(3); i < n; i++) {
    let atom = depth > 0 && rng.next(4) === 0 ? `(?:${generatePattern(rng, depth - 1)}${rng.next(2) ? `|${generatePattern(rng, depth - 1)}` : ''})` : rng.pick(ATOMS);
    if (!['\\b', '\\B', '^', '$'].includes(atom) && rng.next(3) === 0) atom += rng.pick(QUANTIFIERS);
    source += atom;
  }
  return source;
}

describe('compileSafePattern: the same answers as JavaScript', () => {
  it('agrees with RegExp on 2,000 generated patterns × 15 inputs, searching and matching the whole value', () => {
    const rng = random(20260401);
    let compared = 0;
    for (let i = 0; i < 2000; i++) {
      const source = generatePattern(rng, 2);
      const flags = rng.pick(['u', 'iu', 'su', 'mu', 'imsu']);
      const native = new RegExp(source, flags);
      const nativeWhole = new RegExp(`^(?:${source})$`, flags.replace('m', ''));
      const search = compileSafePattern(source, flags);
      const whole = compileSafePattern(source, flags.replace('m', ''), { wholeValue: true });
      // The uncached simulation the matcher hands over to when its cache stops paying, run from the start.
      const parsed = parsePattern(source, flags);
      const program = buildProgram(parsed);
      const uncached = (input: string, wholeValue = false) => simulate(program, parsed.flags, input, { index: 0, previous: -1, threads: [program.start] }, wholeValue);
      for (let j = 0; j < 15; j++) {
        const input = Array.from({ length: rng.next(7) }, () => rng.pick(ALPHABET)).join('');
        const expected = native.test(input);
        expect(search.test(input), `/${source}/${flags} on ${JSON.stringify(input)}`).toBe(expected);
        expect(uncached(input), `uncached /${source}/${flags} on ${JSON.stringify(input)}`).toBe(expected);
        expect(whole.test(input), `whole /${source}/ on ${JSON.stringify(input)}`).toBe(nativeWhole.test(input));
        if (!flags.includes('m')) expect(uncached(input, true), `uncached whole /${source}/ on ${JSON.stringify(input)}`).toBe(nativeWhole.test(input));
        compared++;
      }
    }
    expect(compared).toBe(30_000);
  });

  it('keeps JavaScript meanings where other engines differ: \\s, \\d, \\w, \\b, ".", \\p{...}, case folding', () => {
    const cases: Array<[string, string, string, boolean]> = [
      ['^\\s$', 'u', '\u00a0', true], // RE2's \s is ASCII only
      ['^\\s$', 'u', '\ufeff', true],
      ['^\\d$', 'u', '٣', false], // ECMA \d is ASCII only
      ['^\\w$', 'iu', '\u017f', true], // ſ folds to s under i+u
      ['^.$', 'u', '\u2028', false], // "." excludes every line terminator, not only \n
      ['^.$', 'u', '\r', false],
      ['^.$', 'u', '😀', true], // one code point under u
      ['\\bfoo\\b', 'u', 'é foo', true],
      ['^\\p{Letter}+$', 'u', 'héllo', true],
      ['^[^a]$', 'u', '\ud800', true], // a lone surrogate is one character
    ];
    for (const [source, flags, input, expected] of cases) {
      expect(new RegExp(source, flags).test(input), `native ${source}`).toBe(expected);
      expect(compileSafePattern(source, flags).test(input), `safe ${source} on ${JSON.stringify(input)}`).toBe(expected);
    }
  });

  it('answers catastrophic patterns on 30-character adversarial inputs, and rightly', () => {
    // [pattern, input, found anywhere, matches the whole value]: what JavaScript would answer after minutes.
    const attacks: Array<[string, string, boolean, boolean]> = [
      ['^(a+)+$', `${'a'.repeat(29)}!`, false, false],
      ['^(a|aa)+$', `${'a'.repeat(29)}!`, false, false],
      ['^(\\w+\\s?)*$', `${'a'.repeat(29)}!`, false, false],
      ['(a+)+b', 'a'.repeat(30), false, false],
      ['(\\w+\\s?)*$', `${'a'.repeat(29)}!`, true, false], // unanchored: the empty match at the end counts
      ['(.*a){12}', 'a'.repeat(30), true, true],
      ['^(a+)+$', 'a'.repeat(30), true, true],
    ];
    for (const [source, input, found, whole] of attacks) {
      expect(input.length).toBe(30);
      expect(compileSafePattern(source).test(input), source).toBe(found);
      expect(compileSafePattern(source, 'u', { wholeValue: true }).test(input), `whole ${source}`).toBe(whole);
    }
  });
});

describe('compileSafePattern: refusals', () => {
  it('refuses what needs a backtracking engine, saying what to write instead', () => {
    expect(() => compileSafePattern('(a)\\1')).toThrow(new PatternError("uses a backreference (\\1, \\k<name>), which needs a backtracking engine: patterns are matched in linear time; repeat the group's pattern instead of referring back to it"));
    expect(() => compileSafePattern('(?<x>a)\\k<x>')).toThrow(/backreference/);
    expect(() => compileSafePattern('a(?=b)')).toThrow(/uses lookaround .* state the condition without it/);
    expect(() => compileSafePattern('(?<!a)b')).toThrow(/uses lookaround/);
    expect(() => compileSafePattern('(?:x{100}){100}')).toThrow(/is too large for the linear-time engine/);
    expect(() => compileSafePattern('(a')).toThrow(new PatternError('is not a valid regular expression'));
    expect(() => compileSafePattern('a', 'g')).toThrow(/flags "g" are not supported/);
  });

  it('matches the whole value without textual anchoring: a source cannot break out of the anchors', () => {
    // As `^(?:a)|(.*)$`, this source matched everything; on its own it is not a pattern at all.
    expect(() => compileSafePattern('a)|(.*', 'u', { wholeValue: true })).toThrow(PatternError);
    const whole = compileSafePattern('ls|pwd', 'u', { wholeValue: true });
    expect([whole.test('ls'), whole.test('pwd'), whole.test('ls; rm -rf ~'), whole.test('x pwd')]).toEqual([true, true, false, false]);
  });

  it('prints like a RegExp, so ajv tells patterns apart', () => {
    expect(String(compileSafePattern('^a+$'))).toBe('/^a+$/u');
    expect(String(compileSafePattern('^b+$'))).not.toBe(String(compileSafePattern('^a+$')));
  });

  it('refuses a check that would block for long (a pattern and input built to defeat the cache) instead of blocking', () => {
    // Each position starts a new set of 900 threads: the cache never repeats, the cost per character is the pattern's size.
    const rng = random(7);
    const input = Array.from({ length: 100_000 }, () => rng.pick(['a', 'b'])).join('');
    const crafted = compileSafePattern('[ab]*a[ab]{900}$');
    expect(() => crafted.test(input)).toThrow(PatternBudgetError);
    expect(() => crafted.test(input)).toThrow('a value of 100000 characters is too long or too varied to check against the pattern "[ab]*a[ab]{900}$" in bounded time: send a shorter value');
    // An ordinary pattern on the same long input is answered (the cache makes it a lookup per character).
    expect(compileSafePattern('^[ab]+$').test(input)).toBe(true);
    expect(compileSafePattern('[ab]*a[ab]{20}$').test(input)).toBe(input[input.length - 21] === 'a');
  });
});
