import { describe, expect, it } from 'vitest';
import { seekSequence } from '../../../lib/tools/apply-patch/index.ts';

describe('seekSequence', () => {
  it('finds an exact sequence', () => {
    expect(seekSequence(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false)).toBe(1);
  });

  it('searches from the start index only', () => {
    expect(seekSequence(['a', 'b', 'a'], ['a'], 1, false)).toBe(2);
    expect(seekSequence(['a', 'b'], ['a'], 1, false)).toBeNull();
  });

  it('ignores trailing whitespace in the second pass', () => {
    expect(seekSequence(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false)).toBe(0);
  });

  it('ignores surrounding whitespace in the third pass', () => {
    expect(seekSequence(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false)).toBe(0);
  });

  it('maps typographic punctuation and odd spaces to ASCII in the last pass', () => {
    const lines = ['x', 'say \u201Chi\u201D \u2014 it\u2019s\u00A0fine'];
    expect(seekSequence(lines, ['say "hi" - it\'s fine'], 0, false)).toBe(1);
  });

  it('prefers a stricter match later in the file over a looser one earlier', () => {
    expect(seekSequence(['  foo', 'foo'], ['foo'], 0, false)).toBe(1);
  });

  it('uses Rust whitespace rules, so a BOM is not trimmed', () => {
    expect(seekSequence(['\uFEFFfoo'], ['foo'], 0, false)).toBeNull();
    expect(seekSequence(['foo\u0085'], ['foo'], 0, false)).toBe(0);
  });

  it('returns the start for an empty pattern and null for a pattern longer than the file', () => {
    expect(seekSequence(['a'], [], 3, false)).toBe(3);
    expect(seekSequence(['just one line'], ['too', 'many', 'lines'], 0, false)).toBeNull();
  });

  it('anchors an end-of-file pattern at the end, without falling back', () => {
    expect(seekSequence(['a', 'b', 'a'], ['a'], 0, true)).toBe(2);
    expect(seekSequence(['a', 'b'], ['a'], 0, true)).toBeNull();
    // The anchor must not come before the start: an End of File chunk cannot overlap the one before.
    expect(seekSequence(['a', 'b'], ['b'], 1, true)).toBe(1);
    expect(seekSequence(['a', 'b'], ['b'], 2, true)).toBeNull();
  });
});
