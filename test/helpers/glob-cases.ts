import type { Prng } from './prng.ts';

/**
 * Seeded globs and paths for the differential tests (test/exec/glob.test.ts): globs drawn from
 * the syntax both engines share (lib/exec/local/glob-syntax.ts), built to hit its corners: dotfiles,
 * classes at a name's start, `**` anywhere, groups holding `/` and wildcards, non-ASCII names.
 */
export interface GlobCaseOptions {
  /** Characters literals are drawn from. */
  letters: readonly string[];
  /** `\x` escapes (ripgrep reads `\` as an escape; path.matchesGlob as a `/`, so not for it). */
  escapes: readonly string[];
  /** A leading `!` (exclude) or `/` (anchor): ripgrep's glob_filter only. */
  prefixes: readonly string[];
}

const CLASSES = ['[ab]', '[!a]', '[^.]', '[a-c]', '[]a]', '[a-]', '[.]', '[.a]', '[!.]', '[-b]'];

export function randomGlob(rng: Prng, options: GlobCaseOptions): string {
  const segments = Array.from({ length: 1 + rng.int(3) }, () => randomSegment(rng, options));
  return rng.pick(options.prefixes) + segments.join('/');
}

function randomSegment(rng: Prng, options: GlobCaseOptions): string {
  if (rng.chance(0.2)) return '**';
  for (;;) {
    let segment = '';
    let afterStar = false;
    for (let count = 1 + rng.int(3); count > 0; count--) {
      const atom = randomAtom(rng, options, afterStar);
      segment += atom;
      afterStar = atom.endsWith('*');
    }
    if (segment !== '.' && segment !== '..') return segment;
  }
}

/** No star right after a star (`***` and `{*,a}*` are read apart by the engines). */
function randomAtom(rng: Prng, options: GlobCaseOptions, afterStar: boolean): string {
  const roll = rng.int(10);
  if (roll < 3 || (afterStar && roll < 5)) return rng.pick(options.letters);
  if (roll < 5) return '*';
  if (roll < 6) return '?';
  if (roll < 7) return rng.pick(CLASSES);
  if (roll < 8 && options.escapes.length > 0) return `\\${rng.pick(options.escapes)}`;
  if (afterStar) return rng.pick(options.letters);
  return randomGroup(rng, options);
}

/** `{a,b}`: two or three alternatives of letters and `?`, each may start with `*` or hold a `/`. */
function randomGroup(rng: Prng, options: GlobCaseOptions): string {
  const alternatives = Array.from({ length: 2 + rng.int(2) }, () => {
    let text = rng.chance(0.3) ? '*' : '';
    for (let count = 1 + rng.int(2); count > 0; count--) text += rng.chance(0.2) ? '?' : rng.pick(options.letters);
    return rng.chance(0.15) ? `${text}/${rng.pick(options.letters)}` : text;
  });
  return `{${alternatives.join(',')}}`;
}

/** A relative path of 1-4 names, each 1-3 characters of `letters` (never `.` or `..`). */
export function randomPath(rng: Prng, letters: readonly string[]): string {
  const names = Array.from({ length: 1 + rng.int(4) }, () => {
    for (;;) {
      const name = Array.from({ length: 1 + rng.int(3) }, () => rng.pick(letters)).join('');
      if (name !== '.' && name !== '..') return name;
    }
  });
  return names.join('/');
}
