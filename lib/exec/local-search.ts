import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, join, matchesGlob } from 'node:path';
import { ExecEnvironmentError, type GlobMatch, type GrepMatch } from './environment.ts';
import { MAX_GREP_FILE_BYTES, MAX_GREP_LINE_CHARS } from './limits.ts';

/** A regular file found under a search folder. */
export interface FoundFile {
  absolute: string;
  /** Relative to the environment root, `/`-separated (what results report). */
  path: string;
  /** Relative to the search folder, `/`-separated (what patterns match). */
  underBase: string;
  size: number;
  mtime_ms: number;
}

/** Folders that are never searched into unless a glob pattern names them. */
const SKIPPED_FOLDERS = ['.git', 'node_modules'];

/** Bytes inspected for a NUL byte to call a file binary (what git and grep do). */
const BINARY_SNIFF_BYTES = 8_000;

/**
 * Regular files under a folder, sorted by path. Symbolic links are not followed, so a search
 * cannot wander outside the root or loop; unreadable folders are skipped.
 */
export async function findFiles(baseAbsolute: string, baseRelative: string, skipFolder: (name: string) => boolean): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  await walk(baseAbsolute, baseRelative, '', skipFolder, found);
  return found.sort((a, b) => compare(a.path, b.path));
}

async function walk(folder: string, relative: string, underBase: string, skipFolder: (name: string) => boolean, found: FoundFile[]): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  // A folder's entries are looked at concurrently (lstat opens no file); order comes from the final sort.
  await Promise.all(
    entries.map(async (entry) => {
      const absolute = join(folder, entry.name);
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const below = underBase === '' ? entry.name : `${underBase}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skipFolder(entry.name)) await walk(absolute, path, below, skipFolder, found);
      } else if (entry.isFile()) {
        const stats = await lstat(absolute).catch(() => null);
        if (stats) found.push({ absolute, path, underBase: below, size: stats.size, mtime_ms: Math.floor(stats.mtimeMs) });
      }
    }),
  );
}

export function skipUsualFolders(pattern = ''): (name: string) => boolean {
  return (name) => SKIPPED_FOLDERS.includes(name) && !pattern.includes(name);
}

/** A JavaScript regular expression, with the `u` flag when the pattern allows it. */
export function compilePattern(pattern: string, caseInsensitive: boolean): RegExp {
  const flags = caseInsensitive ? 'i' : '';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch (unicodeError) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      throw new ExecEnvironmentError(
        'invalid_request',
        `grep pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${(unicodeError as Error).message}): fix or escape it`,
      );
    }
  }
}

/**
 * `glob_filter` without a `/` matches file names at any depth (`*.ts`); with one it matches
 * the path under the search folder (`src/**\/*.ts`), like ripgrep's --glob.
 */
export function matchesFilter(file: FoundFile, filter: string | undefined): boolean {
  if (filter === undefined || filter === '') return true;
  return filter.includes('/') ? matchesGlob(file.underBase, filter) : matchesGlob(basename(file.underBase), filter);
}

/** Files read at once while grepping: enough to keep the disk busy, few enough to stay far from fd limits. */
const READ_AHEAD = 32;

/** Matching lines of text files, in path then line order, at most `limit`. */
export async function grepFiles(files: FoundFile[], regex: RegExp, limit: number): Promise<GrepMatch[]> {
  const matches: GrepMatch[] = [];
  const searchable = files.filter((file) => file.size <= MAX_GREP_FILE_BYTES);
  for (let start = 0; start < searchable.length; start += READ_AHEAD) {
    const batch = searchable.slice(start, start + READ_AHEAD);
    const contents = await Promise.all(batch.map((file) => readFile(file.absolute).catch(() => null)));
    for (const [i, bytes] of contents.entries()) {
      if (!bytes || isBinary(bytes)) continue;
      const lines = new TextDecoder().decode(bytes).split(/\r\n|\n|\r/);
      for (let index = 0; index < lines.length; index++) {
        if (!regex.test(lines[index])) continue;
        matches.push({ path: batch[i].path, line: index + 1, text: cutLine(lines[index]) });
        if (matches.length >= limit) return matches;
      }
    }
  }
  return matches;
}

/** Files whose path under the search folder matches, newest first (ties by path). */
export function globFiles(files: FoundFile[], pattern: string): GlobMatch[] {
  return files
    .filter((file) => matchesGlob(file.underBase, pattern))
    .sort((a, b) => b.mtime_ms - a.mtime_ms || compare(a.path, b.path))
    .map((file) => ({ path: file.path, mtime_ms: file.mtime_ms }));
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function cutLine(line: string): string {
  return line.length > MAX_GREP_LINE_CHARS ? `${line.slice(0, MAX_GREP_LINE_CHARS)}…` : line;
}

/** Code-unit order, the same on every machine (localeCompare is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
