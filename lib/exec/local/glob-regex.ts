import type { CodeRange, GlobAtom } from './glob-syntax.ts';

/**
 * Whose meaning a glob gets; the two engines differ only where glob-syntax.ts lets them:
 * - `minimatch` (Node's path.matchesGlob, the glob tool's meaning): wildcards and `**` skip
 *   names that start with `.` unless the pattern writes the dot; `?` and a class match one
 *   character, never `/`.
 * - `ripgrep` (its --glob, grep's glob_filter): wildcards match dotfiles; `?` and classes match
 *   one byte of the UTF-8 path (see utf8Bytes); a negated class (`[!a]`) matches `/` too.
 */
export type GlobEngine = 'minimatch' | 'ripgrep';

const DOT = 0x2e;
const SLASH = 0x2f;
/** Matches nothing: a class at a name's start whose only members are `.` (dotfiles hidden). */
const NOTHING = '[]';

/**
 * The regular expression (for compileSafePattern, `u` flag, whole value) matching the paths the
 * expanded glob matches. A path is its `/`-separated names relative to the search folder; for
 * `ripgrep` each character of it stands for one byte (see utf8Bytes).
 */
export function globRegexSource(patterns: readonly GlobAtom[][], engine: GlobEngine): string {
  return patterns.map((atoms) => pathSource(splitSegments(atoms), engine)).join('|');
}

/** A path as the `ripgrep` expression reads it: one character per UTF-8 byte. */
export function utf8Bytes(path: string): string {
  let text = '';
  for (const byte of new TextEncoder().encode(path)) text += String.fromCharCode(byte);
  return text;
}

type Segment = GlobAtom[] | 'globstar';

/** Splits at `/`; a segment that is exactly `**` as written is a globstar; runs of `*` become one. */
function splitSegments(atoms: readonly GlobAtom[]): Segment[] {
  const segments: GlobAtom[][] = [[]];
  for (const atom of atoms) {
    if (atom.kind === 'separator') segments.push([]);
    else segments[segments.length - 1].push(atom);
  }
  const result: Segment[] = [];
  for (const segment of segments) {
    const globstar = segment.length === 1 && segment[0].kind === 'star' && segment[0].run === 2;
    // Consecutive globstars mean what one does.
    if (globstar && result[result.length - 1] === 'globstar') continue;
    result.push(globstar ? 'globstar' : mergeStars(segment));
  }
  return result;
}

function mergeStars(segment: readonly GlobAtom[]): GlobAtom[] {
  return segment.filter((atom, index) => !(atom.kind === 'star' && segment[index - 1]?.kind === 'star'));
}

/**
 * `a/**\/b` is `a/(?:NAME/)*b`; a globstar at the end stands for one name or more (`a/**` does
 * not match `a` itself), and so does a pattern that is only `**`.
 */
function pathSource(segments: readonly Segment[], engine: GlobEngine): string {
  const name = engine === 'ripgrep' ? '[^/]+' : '[^/.][^/]*';
  let source = '';
  let separator = false;
  segments.forEach((segment, index) => {
    const lead = separator ? '/' : '';
    if (segment !== 'globstar') {
      source += lead + segmentSource(segment, engine);
      separator = true;
    } else if (index === segments.length - 1) {
      source += `${lead}${name}(?:/${name})*`;
    } else {
      source += `${lead}(?:${name}/)*`;
      separator = false;
    }
  });
  return source;
}

/**
 * One name. With dotfiles hidden, a name that starts with a wildcard (`*`, `?`, a class) must
 * not start with `.` (minimatch's rule): `*.ts` does not match `.ts`, `.*` matches `.env`.
 */
function segmentSource(atoms: readonly GlobAtom[], engine: GlobEngine): string {
  const first = atoms[0];
  const wildcard = first !== undefined && (first.kind === 'star' || first.kind === 'any' || (first.kind === 'class' && !singleCharacter(first)));
  return engine === 'minimatch' && wildcard ? noLeadingDot(atoms, engine) : sequence(atoms, engine);
}

/** The atoms, matching only text that does not start with `.`. */
function noLeadingDot(atoms: readonly GlobAtom[], engine: GlobEngine): string {
  const [first, ...rest] = atoms;
  if (first === undefined) return '';
  const notDot = classSource(true, [[DOT, DOT]], engine);
  switch (first.kind) {
    case 'any':
      return notDot + sequence(rest, engine);
    case 'star':
      // Either the star takes the first character (not a dot), or it is empty and the rest starts the name.
      return `(?:${notDot}[^/]*${sequence(rest, engine)}|${noLeadingDot(rest, engine)})`;
    case 'class':
      if (!singleCharacter(first)) return classWithoutDot(first, engine) + sequence(rest, engine);
      return first.ranges[0][0] === DOT ? NOTHING : sequence(atoms, engine);
    case 'char':
      return first.codePoint === DOT ? NOTHING : sequence(atoms, engine);
    case 'separator':
      return sequence(atoms, engine);
  }
}

function sequence(atoms: readonly GlobAtom[], engine: GlobEngine): string {
  return atoms.map((atom) => atomSource(atom, engine)).join('');
}

/** minimatch reads a class of one character (`[.]`) as that character: it may match a leading dot. */
function singleCharacter(atom: GlobAtom & { kind: 'class' }): boolean {
  return !atom.negated && atom.ranges.length === 1 && atom.ranges[0][0] === atom.ranges[0][1];
}

function classWithoutDot(atom: GlobAtom & { kind: 'class' }, engine: GlobEngine): string {
  if (atom.negated) return classSource(true, [...atom.ranges, [DOT, DOT]], engine);
  const ranges = atom.ranges.flatMap(([from, to]): CodeRange[] => {
    if (from > DOT || to < DOT) return [[from, to]];
    return [...(from < DOT ? [[from, DOT - 1] as const] : []), ...(to > DOT ? [[DOT + 1, to] as const] : [])];
  });
  return ranges.length === 0 ? NOTHING : classSource(false, ranges, engine);
}

function atomSource(atom: GlobAtom, engine: GlobEngine): string {
  switch (atom.kind) {
    case 'char':
      return engine === 'ripgrep' ? Array.from(utf8Bytes(String.fromCodePoint(atom.codePoint)), (byte) => escaped(byte.charCodeAt(0))).join('') : escaped(atom.codePoint);
    case 'star':
      return '[^/]*';
    case 'any':
      return '[^/]';
    case 'class':
      return classSource(atom.negated, atom.ranges, engine);
    case 'separator':
      return '/';
  }
}

/**
 * For minimatch a negated class never matches `/` either (it matches within a name); ripgrep's
 * does. (For ripgrep the caller has refused members beyond ASCII, which a byte cannot be.)
 */
function classSource(negated: boolean, ranges: readonly CodeRange[], engine: GlobEngine): string {
  const members = ranges.map(([from, to]) => (from === to ? escaped(from) : `${escaped(from)}-${escaped(to)}`)).join('');
  if (!negated) return `[${members}]`;
  return engine === 'ripgrep' ? `[^${members}]` : `[^${members}${escaped(SLASH)}]`;
}

/** Letters and digits as they are, every other character as `\u{…}`: none can be read as syntax. */
function escaped(codePoint: number): string {
  const char = String.fromCodePoint(codePoint);
  return /^[A-Za-z0-9]$/.test(char) ? char : `\\u{${codePoint.toString(16)}}`;
}
