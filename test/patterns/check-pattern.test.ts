import { describe, expect, it } from 'vitest';
import { checkPattern } from '../../lib/patterns/index.ts';

describe('checkPattern', () => {
  it('refuses nested repetitions that can match the same characters, naming both', () => {
    expect(checkPattern('(a+)+$')).toBe(
      '"(a+)+$" can backtrack catastrophically: the repetition a+ inside the repetition (a+)+ can match the same characters in more than one way, ' +
        "so a backtracking engine (JavaScript's own, or any client's) can take exponential time on a short input; " +
        'make what repeats and what follows it exclusive (e.g. (?:[a-z]+-)* instead of (?:[a-z]+-?)*) or remove one of the repetitions',
    );
    for (const source of ['(\\w+\\s?)*$', '^(a*)*$', '(.*a){12}', '^(([a-z])+.)+[A-Z]([a-z])+$', '(x+x+)+y', '(a?b?)*c', '((ab)+)+$', '(a{2,3})+$', '^([a-z]+ ?)*$', '(\\d+\\.?)+$', '(?:[a-z]+|[0-9]+)*$']) {
      expect(checkPattern(source), source).toMatch(/can backtrack catastrophically: the repetition .* inside the repetition /);
    }
  });

  it('refuses alternatives under a repetition that can start with the same character', () => {
    expect(checkPattern('(a|aa)+$')).toMatch(/^"\(a\|aa\)\+\$" can backtrack catastrophically: the alternatives "a" and "aa" inside the repetition \(a\|aa\)\+ can start with the same character/);
    expect(checkPattern('(\\d|\\w)+$')).toMatch(/the alternatives "\\\\d" and "\\\\w"/);
    expect(checkPattern('(?:é|\\p{L})*x')).toMatch(/the alternatives/);
  });

  it('accepts the usual safe shapes: separated repetitions, exclusive alternatives, bounded counts', () => {
    const safe = [
      '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      '^([a-z0-9]+-)*[a-z0-9]+$',
      '^[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+$',
      '^([a-z0-9]+(-[a-z0-9]+)*\\.)+[a-z]{2,}$',
      '^(?:\\d{1,3}\\.){3}\\d{1,3}$',
      '^(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}$',
      '"(?:[^"\\\\]|\\\\.)*"',
      '^(\\w+\\s)*\\w+$',
      '(ls|pwd|git (status|diff|log))( [^;&|`$<>]*)?',
      '^🐲*$',
      '^\\p{Letter}+$',
      '(?:-?\\d)+',
      '^(?:https?|ftp)://\\S+$',
      '^.{0,255}$',
      '\\s*\\s*$', // polynomial at worst, outside any repetition: not refused
    ];
    for (const source of safe) expect(checkPattern(source), source).toBeUndefined();
  });

  it('refuses what the linear-time matcher cannot run, and invalid patterns', () => {
    expect(checkPattern('(a)\\1')).toMatch(/^"\(a\)\\\\1" uses a backreference/);
    expect(checkPattern('^(?!admin).*')).toMatch(/uses lookaround/);
    expect(checkPattern('(?:[a-z]{50}){50}')).toMatch(/is too large for the linear-time engine \(more than 2000 steps/);
    expect(checkPattern('[')).toBe('"[" is not a valid regular expression');
    expect(checkPattern('\\p{NotAProperty}')).toBe('"\\\\p{NotAProperty}" is not a valid regular expression');
  });

  it('refuses a source too long to check quickly, quoting only its start', () => {
    const message = checkPattern('a'.repeat(20_000));
    expect(message).toBe(`"${'a'.repeat(79)}…" is longer than 10,000 characters: write a shorter pattern, or check the value another way (enum, maxLength)`);
  });
});
