import { compileSafePattern, MAX_PROGRAM_SIZE, PatternBudgetError, PatternError, type SafePattern } from '../../patterns/index.ts';
import { ExecEnvironmentError } from '../environment.ts';
import { globRegexSource, utf8Bytes } from './glob-regex.ts';
import { notValid, parseGlob, quote, type GlobAtom } from './glob-syntax.ts';

/**
 * Glob matching in time linear in the path whatever the pattern: a glob (glob-syntax.ts) is
 * translated to a regular expression (glob-regex.ts) run by the project's linear-time matcher
 * (lib/patterns), never by a backtracking engine. Node's `path.matchesGlob` compiles to a
 * backtracking RegExp, on which a 35-character pattern blocked the exec-server for minutes.
 */
export interface CompiledGlob {
  /**
   * Whether the `/`-separated path (relative to the search folder) matches. Throws
   * invalid_request when a path is too long or varied to check in bounded time.
   */
  matches(path: string): boolean;
}

/** grep's glob_filter, matched here (ripgrep only reads the files it is handed). */
export type GlobFilter = CompiledGlob;

/**
 * The glob tool's pattern, matched against each file's path under the search folder with
 * `path.matchesGlob`'s meaning: wildcards and `**` skip names that start with `.` unless the
 * pattern writes the dot (`.*`, `**\/.github/*`); case-sensitive.
 */
export function compileGlob(pattern: string): CompiledGlob {
  const described = `glob pattern ${quote(pattern)}`;
  const patterns = parseGlob(pattern, described);
  const expression = compileExpression(globRegexSource(patterns, 'minimatch'), described);
  return { matches: (path) => test(expression, path, path, described) };
}

/**
 * grep's glob_filter with ripgrep's --glob meaning: without a `/` it matches the file's name at
 * any depth (`*.ts`), with one the path under the search folder (`src/**\/*.ts`, `/a.ts` at its
 * top only); a leading `!` excludes what the rest matches, and every file under a folder it
 * matches; wildcards match dotfiles; `?` and classes match one byte of UTF-8 (so classes hold
 * ASCII only).
 */
export function compileGlobFilter(filter: string): GlobFilter {
  const described = `glob_filter ${quote(filter)}`;
  const negated = filter.startsWith('!');
  const body = negated ? filter.slice(1) : filter;
  checkFilterShape(body, described);
  const anchored = body.includes('/');
  const patterns = parseGlob(anchored && body.startsWith('/') ? body.slice(1) : body, described);
  if (patterns.some(hasClassBeyondAscii)) {
    throw notValid(described, 'it has a class with a character beyond ASCII, which ripgrep matches one byte at a time: write the alternatives instead, {é,è}');
  }
  const expression = compileExpression(filterSource(globRegexSource(patterns, 'ripgrep'), anchored, negated), described);
  return { matches: (path) => test(expression, utf8Bytes(path), path, described) !== negated };
}

/** What ripgrep reads specially in a --glob (it is a gitignore line), refused or kept apart. */
function checkFilterShape(body: string, described: string): void {
  if (body === '') throw notValid(described, 'it is empty after the leading !: write the glob to exclude, e.g. !*.md');
  if (body.startsWith('(')) throw notValid(described, 'it is an extended glob (!(…)), which is not supported: write the glob to exclude after the !, e.g. !*.{md,txt}');
  // ripgrep trims a line's trailing White_Space unless it ends with `\ ` (Rust's trim_end).
  if (/\p{White_Space}$/u.test(body) && !body.endsWith('\\ ')) {
    throw notValid(described, 'it ends with whitespace, which ripgrep drops: remove it (or write \\ before a last space that is part of the name)');
  }
}

/**
 * Where ripgrep applies the glob: without a `/`, to a name at any depth, else to the path from
 * the top. A `!` glob also applies to every folder on the way (ripgrep skips an excluded
 * folder whole), so it excludes the files under a folder it matches: one expression, one pass.
 */
function filterSource(glob: string, anchored: boolean, negated: boolean): string {
  const folders = '(?:[^/]*/)*';
  return `${anchored ? '' : folders}(?:${glob})${negated ? '(?:/[^/]*)*' : ''}`;
}

function hasClassBeyondAscii(atoms: readonly GlobAtom[]): boolean {
  return atoms.some((atom) => atom.kind === 'class' && atom.ranges.some(([, to]) => to > 0x7f));
}

function compileExpression(source: string, described: string): SafePattern {
  try {
    return compileSafePattern(source, 'u', { wholeValue: true });
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw notValid(described, `it is too complex to match in bounded time (over ${MAX_PROGRAM_SIZE} steps): use fewer {…} alternatives and wildcards, or several calls`);
  }
}

/** Tests `input`, the path as the expression reads it (for ripgrep its UTF-8 bytes); `path` is for the message. */
function test(expression: SafePattern, input: string, path: string, described: string): boolean {
  try {
    return expression.test(input);
  } catch (error) {
    if (!(error instanceof PatternBudgetError)) throw error;
    throw new ExecEnvironmentError(
      'invalid_request',
      `${described} is too complex to check against a path of ${path.length} characters in bounded time: use a simpler pattern (fewer wildcards in a row), or a narrower path`,
    );
  }
}
