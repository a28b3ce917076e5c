import { lstat, readdir } from 'node:fs/promises';
import { ExecEnvironmentError, type GlobMatch } from '../environment.ts';
import type { CompiledGlob, GlobFilter } from './glob.ts';
import { GLOB_MATCH_TIMEOUT_MS } from '../limits.ts';
import { childPathOf, openChild, pathOf, release, type Place } from './places.ts';
import { searchStopped } from './grep.ts';
import { filterInSlices } from './sliced-filter.ts';

/** A regular file found under a search folder. */
export interface FoundFile {
  /** Relative to the environment root, `/`-separated (what results report). */
  path: string;
  /** Relative to the search folder, `/`-separated (what patterns match). */
  underBase: string;
  size: number;
  mtime_ms: number;
}

/** Folders that are never searched into unless a glob pattern names them. */
export const SKIPPED_FOLDERS = ['.git', 'node_modules'];

/** Files a folder's walk looks at together, between two looks at whether it was cancelled. */
const FILES_AT_ONCE = 1_000;

/**
 * Regular files under a folder held open, sorted by path. Each folder is opened inside the one
 * before it without following symlinks, so a search cannot wander outside the root or loop,
 * even while folders are being swapped for symlinks; unreadable folders are skipped. Once
 * `signal` is aborted (nobody waits for the answer) the walk stops, with searchStopped().
 */
export async function findFiles(base: Place, baseRelative: string, skipFolder: (name: string) => boolean, signal?: AbortSignal): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  await walk(base, { relative: baseRelative, underBase: '' }, { skipFolder, signal, found });
  return found.sort((a, b) => compare(a.path, b.path));
}

interface Walk {
  skipFolder: (name: string) => boolean;
  signal: AbortSignal | undefined;
  found: FoundFile[];
}

async function walk(folder: Place, at: { relative: string; underBase: string }, search: Walk): Promise<void> {
  if (search.signal?.aborted) throw searchStopped();
  const entries = await readdir(pathOf(folder), { withFileTypes: true }).catch(() => []);
  const subfolders = entries.filter((entry) => entry.isDirectory() && !search.skipFolder(entry.name)).map((entry) => entry.name);
  const files = entries.filter((entry) => entry.isFile());
  // A folder's files are looked at concurrently (lstat opens no file), a batch at a time so
  // that a cancelled walk stops within one; order comes from the final sort.
  for (let start = 0; start < files.length; start += FILES_AT_ONCE) {
    if (search.signal?.aborted) throw searchStopped();
    await Promise.all(
      files.slice(start, start + FILES_AT_ONCE).map(async ({ name }) => {
        const stats = await lstat(childPathOf(folder, name)).catch(() => null);
        if (stats?.isFile()) search.found.push({ path: join(at.relative, name), underBase: join(at.underBase, name), size: stats.size, mtime_ms: Math.floor(stats.mtimeMs) });
      }),
    );
  }
  // Subfolders one at a time: each holds a descriptor while its subtree is walked, so the
  // descriptors open at once are the depth of the tree, not its size.
  for (const name of subfolders) {
    const child = await openChild(folder, name).catch(() => null);
    if (!child) continue;
    try {
      if (child.stats.isDirectory()) await walk(child.place, { relative: join(at.relative, name), underBase: join(at.underBase, name) }, search);
    } finally {
      await release(child.place);
    }
  }
}

export function skipUsualFolders(pattern = ''): (name: string) => boolean {
  return (name) => SKIPPED_FOLDERS.includes(name) && !pattern.includes(name);
}

/** Whether a file passes grep's glob_filter (see compileGlobFilter): no filter passes every file. */
export function matchesFilter(underBase: string, filter: GlobFilter | undefined): boolean {
  return filter === undefined || filter.matches(underBase);
}

/**
 * Files whose path under the search folder matches, newest first (ties by path). Matched a
 * slice at a time (see filterInSlices), so a glob over a large tree never holds the exec-server,
 * and stopped at the next slice once `signal` is aborted.
 */
export async function globFiles(files: FoundFile[], glob: CompiledGlob, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<GlobMatch[]> {
  const { timeoutMs = GLOB_MATCH_TIMEOUT_MS, signal } = options;
  const tooLong = () =>
    new ExecEnvironmentError('io_error', `glob took longer than ${timeoutMs} ms matching ${files.length} files and was stopped: use a simpler pattern, or a narrower path`);
  const matched = await filterInSlices(files, (file) => glob.matches(file.underBase), { timeoutMs, tooLong, cancel: { signal, error: searchStopped } });
  return matched.sort((a, b) => b.mtime_ms - a.mtime_ms || compare(a.path, b.path)).map((file) => ({ path: file.path, mtime_ms: file.mtime_ms }));
}

/** Joins `/`-separated relative paths ('' is the folder itself). */
function join(relative: string, name: string): string {
  return relative === '' ? name : `${relative}/${name}`;
}

/** Code-unit order, the same on every machine (localeCompare is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
