import { ExecEnvironmentError } from '../environment.ts';

/**
 * The glob syntax of the glob tool and of grep's glob_filter: the part on which Node's
 * `path.matchesGlob` (minimatch) and ripgrep agree, so a pattern means the same wherever it is
 * matched. Everything else is refused with what to write instead, never guessed at:
 *   `*` any characters but `/`   `?` one character but `/`   `**` (a whole segment) any folders
 *   `[abc]` `[a-z]` `[!a]` `[^a]` one character of (not of) a class   `{a,b}` alternatives
 *   `\x` the character x itself
 * Refused: extended globs (`+(a|b)`, `@(…)`, `!(…)`, `*(…)`, `?(…)`), POSIX classes (`[[:alpha:]]`),
 * nested or one-alternative groups, empty alternatives (`{a,}`, also numeric ranges `{1..3}`),
 * a stray `}`, `\` or `/` inside a class, an escaped `/`, a leading or trailing `/`, `//`, `.`
 * and `..` names (also where a group would make one: `{a/,b}/c`).
 */

/** Longer patterns are refused before parsing (a real glob is a few dozen characters). */
export const MAX_GLOB_LENGTH = 1_000;
/** The most patterns a glob's `{a,b}` groups may expand to (`{a,b}{c,d}` is 4). */
export const MAX_GLOB_EXPANSIONS = 256;
/**
 * The most atoms (characters, wildcards, classes) the expanded patterns may hold together: each
 * compiles to an instruction or more, and the matcher runs 2,000 at most (MAX_PROGRAM_SIZE), so
 * a glob past this is refused before anything is built.
 */
export const MAX_GLOB_EXPANDED_ATOMS = 2_000;

/** One inclusive range of code points in a class. */
export type CodeRange = readonly [from: number, to: number];

/** One step of a glob after its `{a,b}` groups are expanded. */
export type GlobAtom =
  | { kind: 'char'; codePoint: number }
  /** A run of `*` as written: a run of exactly two forming a whole segment is `**`. */
  | { kind: 'star'; run: number }
  | { kind: 'any' }
  | { kind: 'class'; negated: boolean; ranges: CodeRange[] }
  | { kind: 'separator' };

type Item = GlobAtom | { kind: 'group'; alternatives: GlobAtom[][] };

/** The glob refused: says what was wrong and what to write instead. */
class GlobSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobSyntaxError';
  }
}

const EXTGLOB_MARKS = new Set(['+', '@', '!', '*', '?']);

/**
 * Parses a glob and expands its `{a,b}` groups: one list of atoms per pattern they stand for.
 * `described` names the argument in messages (`glob_filter "*.ts"`).
 */
export function parseGlob(pattern: string, described: string): GlobAtom[][] {
  try {
    checkShape(pattern);
    return expand(new GlobParser(pattern).parse());
  } catch (error) {
    if (!(error instanceof GlobSyntaxError)) throw error;
    throw notValid(described, error.message);
  }
}

/** The error a refused glob answers: the exec-server's invalid_request, saying what to write instead. */
export function notValid(described: string, reason: string): ExecEnvironmentError {
  return new ExecEnvironmentError('invalid_request', `${described} is not a valid glob: ${reason}`);
}

/** A pattern as messages quote it: JSON, cut after 80 characters. */
export function quote(pattern: string): string {
  return JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 79)}…` : pattern);
}

/** Rules on the pattern as written, before its characters are read. */
function checkShape(pattern: string): void {
  if (pattern === '') throw new GlobSyntaxError('it is empty: write a pattern such as **/*.ts');
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobSyntaxError(`it is longer than ${MAX_GLOB_LENGTH} characters: write a shorter pattern`);
  if (pattern.includes('\0')) throw new GlobSyntaxError('it contains a NUL character');
}

/**
 * Rules on each pattern the groups stand for, on its names: an empty one (a leading or trailing
 * `/`, `//`) or `.` and `..` never match a path as the walk reports it, and minimatch would
 * rewrite them where ripgrep does not.
 */
function checkSegments(atoms: readonly GlobAtom[]): void {
  if (atoms[0]?.kind === 'separator') throw new GlobSyntaxError('it starts with /: patterns match paths under the search folder, so write it relative (src/*.ts) and set path to the folder');
  if (atoms[atoms.length - 1]?.kind === 'separator') {
    throw new GlobSyntaxError('it ends with /, which would match folders only: write src/** for every file under src, src/* for the files directly in it');
  }
  let name = '';
  for (const atom of [...atoms, { kind: 'separator' } as const]) {
    if (atom.kind !== 'separator') {
      name += atom.kind === 'char' ? String.fromCodePoint(atom.codePoint) : '*';
      continue;
    }
    if (name === '') throw new GlobSyntaxError('it has an empty folder name (//): write a single /');
    if (name === '.' || name === '..') throw new GlobSyntaxError('it has a . or .. folder: patterns match paths under the search folder as they are; set path to the folder to search instead');
    name = '';
  }
}

/** Reads the pattern one code point at a time; groups hold atoms only (nesting is refused). */
class GlobParser {
  readonly #chars: string[];
  #at = 0;

  constructor(pattern: string) {
    this.#chars = Array.from(pattern);
  }

  parse(): Item[] {
    const items: Item[] = [];
    while (this.#at < this.#chars.length) {
      const char = this.#chars[this.#at];
      if (char === '{') {
        this.#at++;
        items.push(this.#group());
      } else if (char === '}') {
        throw new GlobSyntaxError('it has a } without a { before it: write \\} for the character itself');
      } else {
        items.push(this.#atom());
      }
    }
    return items;
  }

  /** After `{`: alternatives separated by `,` up to the matching `}`. */
  #group(): Item {
    const alternatives: GlobAtom[][] = [[]];
    for (;;) {
      const char = this.#chars[this.#at];
      if (char === undefined) throw new GlobSyntaxError('it has a { without a closing }: write \\{ for the character itself');
      if (char === '{') throw new GlobSyntaxError('it has a {…} group inside another: write one group with every alternative, {a,b,c}');
      this.#at++;
      if (char === '}') break;
      if (char === ',') alternatives.push([]);
      else {
        this.#at--;
        alternatives[alternatives.length - 1].push(this.#atom());
      }
    }
    if (alternatives.length < 2) {
      throw new GlobSyntaxError('it has a {…} group without a comma: write the alternatives separated by commas ({ts,tsx}; ranges such as {1..3} are not supported, list them: {1,2,3}), or \\{ \\} for the braces themselves');
    }
    if (alternatives.some((alternative) => alternative.length === 0)) {
      throw new GlobSyntaxError('it has an empty alternative in a {…} group ({a,} or {,a}): ripgrep drops it and minimatch keeps it, so write two patterns or name every alternative');
    }
    return { kind: 'group', alternatives };
  }

  #atom(): GlobAtom {
    const char = this.#chars[this.#at++];
    if (EXTGLOB_MARKS.has(char) && this.#chars[this.#at] === '(') {
      throw new GlobSyntaxError(
        `it has an extended glob (${char}(…)), which is not supported: write alternatives as {a,b} (for example *.{ts,tsx}), or \\( for a parenthesis itself`,
      );
    }
    switch (char) {
      case '\\':
        return this.#escaped();
      case '*':
        return this.#stars();
      case '?':
        return { kind: 'any' };
      case '[':
        return this.#class();
      case '/':
        return { kind: 'separator' };
      default:
        return { kind: 'char', codePoint: char.codePointAt(0) as number };
    }
  }

  #escaped(): GlobAtom {
    const char = this.#chars[this.#at++];
    if (char === undefined) throw new GlobSyntaxError('it ends with a lone \\: write \\\\ for a backslash itself');
    if (char === '/') throw new GlobSyntaxError('it has an escaped / (\\/): a / always separates folders, write it without the \\');
    return { kind: 'char', codePoint: char.codePointAt(0) as number };
  }

  #stars(): GlobAtom {
    let run = 1;
    while (this.#chars[this.#at] === '*') {
      this.#at++;
      run++;
    }
    if (this.#chars[this.#at] === '(') throw new GlobSyntaxError('it has an extended glob (*(…)), which is not supported: write alternatives as {a,b}, or \\( for a parenthesis itself');
    return { kind: 'star', run };
  }

  /** After `[`: `!` or `^` negates; a `]` first is a member; `a-z` is a range. */
  #class(): GlobAtom {
    const negated = this.#chars[this.#at] === '!' || this.#chars[this.#at] === '^';
    if (negated) this.#at++;
    const ranges: CodeRange[] = [];
    for (let first = true; ; first = false) {
      const char = this.#chars[this.#at++];
      if (char === undefined) throw new GlobSyntaxError('it has a [ without a closing ]: write \\[ for the character itself');
      if (char === ']' && !first) return { kind: 'class', negated, ranges };
      const from = classMember(char);
      if (this.#chars[this.#at] === '-' && this.#chars[this.#at + 1] !== undefined && this.#chars[this.#at + 1] !== ']') {
        const to = classMember(this.#chars[this.#at + 1]);
        this.#at += 2;
        if (to < from) throw new GlobSyntaxError(`it has a class range that runs backwards (${char}-${String.fromCodePoint(to)}): write the smaller end first`);
        ranges.push([from, to]);
      } else {
        ranges.push([from, from]);
      }
    }
  }
}

/** A character inside `[...]`; the ones the two engines read differently there are refused. */
function classMember(char: string): number {
  if (char === '[') throw new GlobSyntaxError('it has a [ inside a class (POSIX classes such as [[:alpha:]] are not supported): write the characters, e.g. [a-zA-Z]');
  if (char === '\\') throw new GlobSyntaxError('it has a \\ inside a class, which ripgrep and minimatch read differently: put ] first ([]a]) and - last ([a-]) instead of escaping them');
  if (char === '/') throw new GlobSyntaxError('it has a / inside a class: a / always separates folders and is never one character of a name');
  return char.codePointAt(0) as number;
}

/** Every pattern the groups stand for, in order; refused when there would be too many or too long. */
function expand(items: Item[]): GlobAtom[][] {
  let count = 1;
  for (const item of items) {
    if (item.kind === 'group') count *= item.alternatives.length;
    if (count > MAX_GLOB_EXPANSIONS) {
      throw new GlobSyntaxError(`its {…} groups stand for more than ${MAX_GLOB_EXPANSIONS} patterns: use fewer groups or alternatives (or several calls)`);
    }
  }
  // Each atom outside a group is in every pattern; a group's alternatives share its patterns out.
  const atoms = items.reduce((sum, item) => {
    if (item.kind !== 'group') return sum + count;
    const lengths = item.alternatives.reduce((total, alternative) => total + alternative.length, 0);
    return sum + (count / item.alternatives.length) * lengths;
  }, 0);
  if (atoms > MAX_GLOB_EXPANDED_ATOMS) {
    throw new GlobSyntaxError(`its {…} groups expand to more than ${MAX_GLOB_EXPANDED_ATOMS} characters in all: use fewer groups or alternatives, or move the long parts out of them (or several calls)`);
  }
  let patterns: GlobAtom[][] = [[]];
  for (const item of items) {
    if (item.kind !== 'group') patterns.forEach((pattern) => pattern.push(item));
    else patterns = patterns.flatMap((pattern) => item.alternatives.map((alternative) => [...pattern, ...alternative]));
  }
  patterns.forEach(checkSegments);
  return patterns;
}
