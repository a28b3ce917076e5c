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

  it('refuses groups nested deeper than 32 before parsing them, however deep (no stack overflow), and checks 32', () => {
    // One distinct character per level: exclusive, so 32 levels pass; the attack nested 400 to 900.
    const nested = (levels: number) => {
      let source = '';
      for (let i = 0; i < levels; i++) source += `(?:${String.fromCodePoint(0x4e00 + i)}`;
      return source + ')*'.repeat(levels);
    };
    expect(checkPattern(nested(32))).toBeUndefined();
    for (const levels of [33, 400, 900, 1600]) {
      expect(checkPattern(nested(levels)), `${levels} levels`).toMatch(new RegExp(`^"\\(\\?:一.*…" nests groups ${levels} deep \\(at most 32\\): use fewer nested groups`));
    }
    // Parentheses in a class or escaped do not nest.
    expect(checkPattern(`^[(]{0,3}${'\\('.repeat(40)}[)]*$`)).toBeUndefined();
  });

  it('compares nine hundred alternatives in one sweep: distinct starts pass, a repeated one is named', () => {
    const alternatives = Array.from({ length: 900 }, (_, i) => String.fromCodePoint(0x4e00 + 3 * i));
    expect(checkPattern(`(?:${alternatives.join('|')})*`)).toBeUndefined();
    expect(checkPattern(`(?:${alternatives.join('|')}|${alternatives[500]}x)*`)).toMatch(/the alternatives "叜" and "叜x" inside the repetition \(\?:一\|七\|.*… can start with the same character/);
  });

  it('refuses what it cannot tell apart: property escapes it has no ranges for, compared soundly', () => {
    // JavaScript's RegExp takes 40 s on 25 characters of the first; each is accepted by a check comparing samples.
    for (const source of [
      '^(\\p{Script=Ethiopic}+\\p{Script=Ethiopic}?)+$',
      '^(\\p{Script=Georgian}+)+$',
      '^(?:\\p{Script=Georgian}|\\p{Script=Georgian}\\p{Script=Georgian})+$',
      '^(?:\\p{Lu}|\\p{Script=Georgian})*$',
      '^(?:\\p{L}|[\\u{10000}-\\u{10FFFF}])*$',
      '^(?:[^a-z]|\\p{Ll})*$',
      // Exclusive in fact (Alphabetic holds no Nd), but not by General_Category alone: unsure, so refused.
      '(?:\\p{Alphabetic}+\\p{Nd})*x',
      // A bounded repetition that can match in too many ways is checked too.
      '^(?:(?:a|a){10}){2}$',
    ]) {
      expect(checkPattern(source), source).toMatch(/can backtrack catastrophically/);
    }
  });

  it('accepts exclusive shapes with property escapes: against small ranges and between General_Category values', () => {
    for (const source of [
      '^[\\p{L}\\p{N}]+(?:-[\\p{L}\\p{N}]+)*$',
      '^(?:\\p{L}+\\s)*\\p{L}+$',
      '^\\p{Lu}\\p{Ll}+(?: \\p{Lu}\\p{Ll}+)*$',
      '^(?:\\p{Lu}\\p{Ll}*)+$',
      '^(?:\\p{L}+[^\\p{L}]+)*$',
      '^(?:\\p{Nd}+\\.)*\\p{Nd}+$',
      // IPv6, every form, and a quoted string with escapes.
      '^(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,7}:|(?:[0-9a-f]{1,4}:){1,6}:[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,5}(?::[0-9a-f]{1,4}){1,2}|::(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4}|::)$',
      '^(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$',
      "'(?:[^'\\\\]|\\\\.)*'",
    ]) {
      expect(checkPattern(source), source).toBeUndefined();
    }
  });
});

