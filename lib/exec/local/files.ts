import { constants, type Stats } from 'node:fs';
import { lstat, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { ExecEnvironmentError, type DirectoryEntry, type EntryType, type FileStat } from '../environment.ts';
import { fsError } from './errors.ts';
import { isOrdinaryEntry, requireUsableFile, specialFileRefused, type FilePolicy } from './file-kinds.ts';
import { MAX_LISTED_ENTRIES } from '../limits.ts';
import { childPathOf, createChild, openChild, pathOf, realPathOfOpen, release, reopen, type Place } from './places.ts';
import { isInside, type Found, type Lookup, type PathSandbox } from './paths.ts';

/**
 * The file operations of the local environment, each on what PathSandbox found and holds open:
 * bytes are read from and written to the file that was checked, and whatever is created is
 * created inside a folder that was checked (never through a symlink, never truncating first).
 */

/** Walks repeated when a file appears at a name between the walk and the create (a race). */
const CREATE_ATTEMPTS = 3;

/** S_ISUID | S_ISGID. */
const SETUID_SETGID = 0o6000;

/**
 * The file's bytes; a file larger than `maxBytes` is refused unread (invalid_request), even one
 * that grows while it is read. Only a file `policy` allows (local-file-kinds.ts) is opened, and
 * the descriptor opened is checked again.
 */
export async function readRootedFile(paths: PathSandbox, path: string, maxBytes: number, policy: FilePolicy): Promise<Uint8Array> {
  return paths.use(path, {}, async (lookup) => {
    if (lookup.kind === 'missing') throw missing(path);
    requireUsableFile(lookup.stats, path, policy);
    const handle = await reopen(lookup.place, constants.O_RDONLY).catch((error: unknown) => Promise.reject(fsError(error, path)));
    try {
      await requireOpenedInside(paths, handle, path);
      const stats = await handle.stat();
      requireUsableFile(stats, path, policy);
      return await readAtMost(handle, stats.size, maxBytes, path);
    } catch (error) {
      throw fsError(error, path);
    } finally {
      await handle.close();
    }
  });
}

async function readAtMost(handle: FileHandle, size: number, maxBytes: number, path: string): Promise<Uint8Array> {
  if (size > maxBytes) throw fileTooLarge(path, maxBytes, size);
  // One byte more than stat said: a file that grew since is read on, up to one byte past the limit.
  let buffer = new Uint8Array(Math.min(size, maxBytes) + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
    if (length > maxBytes) throw fileTooLarge(path, maxBytes);
    if (length === buffer.length) {
      const grown = new Uint8Array(Math.min(buffer.length * 2, maxBytes + 1));
      grown.set(buffer);
      buffer = grown;
    }
  }
}

/**
 * Writes the file in place (its own inode: a file with several names changes under all of them,
 * which is why `policy` refuses those unless the operator allows them), creating it if missing.
 */
export async function writeRootedFile(paths: PathSandbox, path: string, content: Uint8Array, policy: FilePolicy): Promise<void> {
  if (paths.relative(path) === '') throw rootRefused('written to', path);
  for (let attempt = 1; ; attempt++) {
    const written = await paths.use(path, { createFolders: true }, async (lookup) => {
      const handle = await openForWriting(lookup, path, policy);
      if (handle === undefined) return false;
      try {
        await requireOpenedInside(paths, handle, path);
        // Checked on the descriptor before anything changes: the name may lead elsewhere by now.
        const stats = await handle.stat();
        requireUsableFile(stats, path, policy);
        await dropSetuidBits(handle, stats);
        await handle.truncate(0);
        await handle.writeFile(content);
        return true;
      } catch (error) {
        throw fsError(error, path);
      } finally {
        await handle.close();
      }
    });
    if (written) return;
    if (attempt >= CREATE_ATTEMPTS) throw new ExecEnvironmentError('io_error', `${JSON.stringify(path)} kept changing while it was written: try again`);
  }
}

/** The file to write, opened; undefined when something appeared at a missing name since the walk. */
async function openForWriting(lookup: Lookup, path: string, policy: FilePolicy): Promise<FileHandle | undefined> {
  try {
    if (lookup.kind === 'missing') return await createChild(lookup.folder, lookup.name);
    requireUsableFile(lookup.stats, path, policy);
    return await reopen(lookup.place, constants.O_WRONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw fsError(error, path);
  }
}

/**
 * A file that is rewritten loses its setuid and setgid bits first, as the kernel does for a writer
 * without CAP_FSETID. A root exec-server holds CAP_FSETID, so without this, new bytes chosen by the
 * model would run as the owner of a setuid file someone left in the workspace.
 */
async function dropSetuidBits(handle: FileHandle, { mode }: Stats): Promise<void> {
  if (mode & SETUID_SETGID) await handle.chmod(mode & 0o7777 & ~SETUID_SETGID);
}

export async function deleteRootedFile(paths: PathSandbox, path: string): Promise<void> {
  if (paths.relative(path) === '') throw rootRefused('deleted', path);
  await paths.use(path, { followLast: false }, async (lookup) => {
    if (lookup.kind === 'missing') throw missing(path);
    if (lookup.stats.isDirectory()) {
      throw new ExecEnvironmentError('is_directory', `${JSON.stringify(path)} is a folder: deleteFile removes files only (use a command such as "rm -r" for folders)`);
    }
    if (!isOrdinaryEntry(lookup.stats)) throw specialFileRefused(path);
    await requireLinkInside(paths, lookup, path);
    await unlink(entryPath(lookup)).catch((error: unknown) => Promise.reject(fsError(error, path)));
  });
}

export async function moveRootedFile(paths: PathSandbox, from: string, to: string): Promise<void> {
  if (paths.relative(from) === '') throw rootRefused('moved', from);
  if (paths.relative(to) === '') throw rootRefused('replaced', to);
  await paths.use(from, { followLast: false }, async (source) => {
    if (source.kind === 'missing') throw missing(from);
    if (!isOrdinaryEntry(source.stats)) throw specialFileRefused(from);
    await requireLinkInside(paths, source, from);
    await paths.use(to, { followLast: false, createFolders: true }, async (destination) => {
      if (destination.kind === 'found' && !isOrdinaryEntry(destination.stats)) throw specialFileRefused(to);
      if (destination.kind === 'found') await requireLinkInside(paths, destination, to);
      const target = destination.kind === 'found' ? entryPath(destination) : childPathOf(destination.folder, destination.name);
      await rename(entryPath(source), target).catch((error: unknown) => Promise.reject(fsError(error, to)));
    });
  });
}

/** Follows symlinks; null when nothing is there. */
export async function statRooted(paths: PathSandbox, path: string): Promise<FileStat | null> {
  try {
    return await paths.use(path, {}, async (lookup) =>
      lookup.kind === 'missing' ? null : { type: entryType(lookup.stats), size: lookup.stats.size, mtime_ms: Math.floor(lookup.stats.mtimeMs) },
    );
  } catch (error) {
    if (error instanceof ExecEnvironmentError && (error.code === 'not_found' || error.code === 'not_directory')) return null;
    throw error;
  }
}

/** Depth-first, each folder's entries sorted by name, so a tree reads top to bottom. Symlinks are listed, never followed. */
export async function listRootedFolder(paths: PathSandbox, path: string, depth: number): Promise<DirectoryEntry[]> {
  return paths.use(path, {}, async (lookup) => {
    const folder = requireFolder(lookup, path);
    const entries: DirectoryEntry[] = [];
    await listInto(folder, paths.relative(path), depth, entries);
    return entries.sort(byPathSegments);
  });
}

/** Each folder followed by what is in it, names in code-unit order ("a", "a/x", "a-b"), as a depth-first walk finds them. */
function byPathSegments(a: DirectoryEntry, b: DirectoryEntry): number {
  const left = a.path.split('/');
  const right = b.path.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * A folder's own entries first, then its sub-folders', so a listing cut at MAX_LISTED_ENTRIES
 * still shows every entry of the levels above the cut (a huge first sub-folder does not hide
 * the folder's other entries); listRootedFolder then puts them in depth-first order.
 */
async function listInto(folder: Place, relative: string, depthLeft: number, entries: DirectoryEntry[]): Promise<void> {
  const names = (await readdir(pathOf(folder)).catch((error: unknown) => Promise.reject(fsError(error, relative || '.')))).sort();
  const folders: Array<{ name: string; path: string }> = [];
  for (const name of names) {
    if (entries.length >= MAX_LISTED_ENTRIES) return;
    const stats = await lstat(childPathOf(folder, name)).catch(() => null);
    if (!stats) continue;
    const path = relative === '' ? name : `${relative}/${name}`;
    entries.push({ path, type: entryType(stats), size: stats.size });
    if (stats.isDirectory() && depthLeft > 1) folders.push({ name, path });
  }
  for (const { name, path } of folders) {
    if (entries.length >= MAX_LISTED_ENTRIES) return;
    // Opened without following: a folder swapped for a symlink since the lstat is not entered.
    const child = await openChild(folder, name).catch(() => null);
    if (!child) continue;
    try {
      if (child.stats.isDirectory()) await listInto(child.place, path, depthLeft - 1, entries);
    } finally {
      await release(child.place);
    }
  }
}

/** The folder a lookup found, or not_found / not_directory. */
export function requireFolder(lookup: Lookup, path: string): Place {
  if (lookup.kind === 'missing') throw missing(path);
  if (!lookup.stats.isDirectory()) throw new ExecEnvironmentError('not_directory', `${JSON.stringify(path)} is a file, not a folder: name a folder`);
  return lookup.place;
}

export function entryType(stats: Stats): EntryType {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** The entry's own name in its folder (unlink and rename act on names, never following them). */
function entryPath(found: Found): string {
  return found.folder ? childPathOf(found.folder, found.name) : pathOf(found.place);
}

/** Moving or deleting a symlink is refused when it points outside the root, as reading through it is. */
async function requireLinkInside(paths: PathSandbox, found: Found, path: string): Promise<void> {
  if (found.stats.isSymbolicLink()) await paths.use(path, {}, async () => undefined);
}

/** Defence in depth on Linux: the descriptor about to be read or written really is inside the root. */
async function requireOpenedInside(paths: PathSandbox, handle: FileHandle, path: string): Promise<void> {
  const real = await realPathOfOpen(handle);
  if (real !== undefined && !isInside(paths.root, real)) {
    throw new ExecEnvironmentError('outside_root', `${JSON.stringify(path)} was moved outside the environment root while it was opened: use a path inside the root`);
  }
}

function fileTooLarge(path: string, maxBytes: number, size?: number): ExecEnvironmentError {
  const actual = size === undefined ? 'larger than' : `${describeBytes(size)}, more than`;
  return new ExecEnvironmentError(
    'invalid_request',
    `${JSON.stringify(path)} is ${actual} the ${describeBytes(maxBytes)} readFile returns, so nothing was read: ` +
      "search it with grep, or read part of it with a shell command (head -n 200, tail -n 200, sed -n '1000,1200p', head -c 100000)",
  );
}

function describeBytes(bytes: number): string {
  const MIB = 1024 * 1024;
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB (${bytes} bytes)` : `${bytes} bytes`;
}

function missing(path: string): ExecEnvironmentError {
  return fsError(Object.assign(new Error('missing'), { code: 'ENOENT' }), path);
}

function rootRefused(done: string, path: string): ExecEnvironmentError {
  return new ExecEnvironmentError('invalid_path', `${JSON.stringify(path)} is the environment root itself, which cannot be ${done}: name a file inside it`);
}
