import { readdirSync, readFileSync } from 'node:fs';
import type { GrepMatch } from '../environment.ts';
import type { GlobFilter } from './glob.ts';
import { MAX_GREP_FILE_BYTES } from '../limits.ts';
import { fsError } from './errors.ts';
import { requireUsableFile, type FilePolicy } from './file-kinds.ts';
import { GrepWalk, type SearchableFile } from './grep-walk.ts';
import { runRipgrep, searchStopped, searchTookTooLong, type RipgrepSearch } from './grep.ts';
import type { PathSandbox } from './paths.ts';
import { HELD_OPEN, heldEntryOf, releaseEntry, type Place } from './places.ts';
import { matchesFilter } from './search.ts';

/**
 * Files handed to one ripgrep: descriptors held at once per search, and fewer processes per
 * search (a tree of 10,000 files takes 10; each ripgrep started costs about 10 ms here).
 */
const FILES_PER_RIPGREP = 1024;
/** Searches that may hold batches at once (the exec-server's default file operations at once): each takes its part of the spare descriptors. */
const SEARCHES_AT_ONCE = 4;
/** Descriptors left free beside a batch: ripgrep's pipes, the server's sockets, other operations. */
const DESCRIPTOR_RESERVE = 64;

export interface GrepRequest {
  search: Omit<RipgrepSearch, 'files' | 'deadline'>;
  /** grep's glob_filter, matched against each file's path under the search folder (or, for one file, its name). */
  filter?: GlobFilter;
  policy: FilePolicy;
}

/**
 * grep over a file or a folder under the root. A file the call names must be one the file
 * operations use (local-file-kinds.ts), or it is refused; a folder is walked
 * (local-grep-walk.ts), and the files found are handed to ripgrep a batch at a time, in path
 * order, until `limit` matches or the time limit.
 */
export async function grepRooted(paths: PathSandbox, path: string, request: GrepRequest): Promise<GrepMatch[]> {
  const relative = paths.relative(path);
  const deadline = Date.now() + request.search.timeoutMs;
  return paths.use(path, {}, async (lookup) => {
    if (lookup.kind === 'missing') throw fsError(Object.assign(new Error('missing'), { code: 'ENOENT' }), path);
    if (lookup.stats.isDirectory()) return searchFolder(lookup.place, relative, request, deadline);
    requireUsableFile(lookup.stats, path, request.policy);
    // rg would ignore a glob and the size limit for a file it is given: they apply here.
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    if (!matchesFilter(name, request.filter) || lookup.stats.size > MAX_GREP_FILE_BYTES) return [];
    return runRipgrep({ ...request.search, files: [{ path: relative, entry: heldEntryOf(lookup.place) }], deadline });
  });
}

async function searchFolder(folder: Place, relative: string, request: GrepRequest, deadline: number): Promise<GrepMatch[]> {
  const { search, filter, policy } = request;
  const walk = new GrepWalk(folder, relative, { accepts: (under) => matchesFilter(under, filter), policy });
  const matches: GrepMatch[] = [];
  let files: SearchableFile[] = [];
  try {
    while (!walk.done && matches.length < search.limit) {
      files = await walk.take(batchSize());
      // The walk alone can take long too (a large tree whose files glob_filter all excludes).
      if (Date.now() >= deadline) throw searchTookTooLong(search.timeoutMs);
      if (search.signal?.aborted) throw searchStopped();
      if (files.length > 0) matches.push(...(await runRipgrep({ ...search, files, limit: search.limit - matches.length, deadline })));
      files.forEach((file) => releaseEntry(file.entry));
      files = [];
    }
    return matches;
  } finally {
    files.forEach((file) => releaseEntry(file.entry));
    walk.close();
  }
}

/** FILES_PER_RIPGREP, or fewer where this process is near its limit of open files (RLIMIT_NOFILE). */
function batchSize(): number {
  if (!HELD_OPEN) return FILES_PER_RIPGREP;
  const spare = openFileLimit() - readdirSync('/proc/self/fd').length - DESCRIPTOR_RESERVE;
  return Math.max(1, Math.min(FILES_PER_RIPGREP, Math.floor(spare / SEARCHES_AT_ONCE)));
}

/** The soft limit on open files, from /proc/self/limits ("Max open files  1024  4096  files"). */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((text) => text.startsWith('Max open files'));
  const soft = Number(line?.split(/\s{2,}/)[1]);
  return Number.isSafeInteger(soft) ? soft : FILES_PER_RIPGREP + DESCRIPTOR_RESERVE;
}
