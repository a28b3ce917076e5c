import type { DirectoryEntry, ExecutionEnvironment } from '../../exec/environment.ts';
import { MAX_LISTED_ENTRIES } from '../../exec/limits.ts';
import { inEnvironment } from './environment-errors.ts';
import { describeLocation } from './wording.ts';

/** How deep a listing goes: the folder's own entries and those of its sub-folders. */
export const LISTING_DEPTH = 2;

/** A name starting with "." anywhere in the path (.git, .env, .cache/...): left out, as `ls` does. */
function isHidden(entry: DirectoryEntry, base: string): boolean {
  const below = base === '' ? entry.path : entry.path.slice(base.length + 1);
  return below.split('/').some((segment) => segment.startsWith('.'));
}

/**
 * The listed folder as the environment names it (entries come relative to its root, whatever
 * form the path was given in): the parent of the shallowest entry.
 */
function listedFolder(entries: readonly DirectoryEntry[]): string {
  const depth = (entry: DirectoryEntry) => entry.path.split('/').length;
  const shallowest = entries.reduce<DirectoryEntry | undefined>((best, entry) => (best === undefined || depth(entry) < depth(best) ? entry : best), undefined);
  if (shallowest === undefined) return '';
  return shallowest.path.split('/').slice(0, -1).join('/');
}

/**
 * The files and folders up to two levels below `path`, hidden items left out, folders marked
 * with a trailing "/" (the shape of the text editor's directory view). `seeMore` says how to see
 * the entries of a listing cut at its limit.
 */
export async function listDirectory(env: Pick<ExecutionEnvironment, 'listDirectory'>, path: string, seeMore: string): Promise<string> {
  const listed = await inEnvironment(path, () => env.listDirectory(path, LISTING_DEPTH));
  // An environment stops its walk at MAX_LISTED_ENTRIES; one that does not is cut here.
  const cut = listed.length >= MAX_LISTED_ENTRIES;
  const entries = listed.slice(0, MAX_LISTED_ENTRIES);
  const base = listedFolder(entries);
  const shown = entries.filter((entry) => !isHidden(entry, base)).map((entry) => (entry.type === 'directory' ? `${entry.path}/` : entry.path));
  const where = describeLocation(path);
  if (shown.length === 0 && !cut) return `${where} is empty (hidden items left out).`;
  const note = cut ? `\n[Listing stopped after ${MAX_LISTED_ENTRIES} entries. ${seeMore}]` : '';
  return `Files and folders in ${where}, up to ${LISTING_DEPTH} levels deep (hidden items left out):\n${shown.join('\n')}${note}`;
}
