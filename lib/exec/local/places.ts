import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Files and folders held open while they are used, so that checking where something is and
 * using it cannot be raced apart by a folder swapped for a symlink in between.
 *
 * Node has no openat(2), but on Linux `/proc/self/fd/N/name` is the same thing: `name` inside
 * the folder open as descriptor N, wherever that folder is now and whatever happened to the path
 * that led to it. A place found by walking from the root one name at a time, never following a
 * symlink the kernel's way, stays inside the root while it is held.
 *
 * Elsewhere (macOS, Windows) a place is only its real path, each step is checked with lstat,
 * and a swap between the check and the use stays possible: a best effort.
 */
export const HELD_OPEN = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * O_PATH (Linux): a handle that locates a file without opening it for reading or writing, so a
 * FIFO cannot block and a device sees no open. Its value on every architecture Node supports.
 */
const O_PATH = 0o10000000;

/** Also refuse a symlink when reopening by real path (the fallback); a /proc/self/fd link must be followed. */
const REOPEN_FLAGS = HELD_OPEN ? 0 : constants.O_NOFOLLOW;

/** Something inside the root: where it really is, and on Linux a handle that keeps naming it. */
export interface Place {
  real: string;
  handle?: FileHandle;
}

/** A path naming the place itself, through its handle when it has one. */
export function pathOf(place: Place): string {
  return place.handle ? `/proc/self/fd/${place.handle.fd}` : place.real;
}

/** A path naming `name` inside a folder place (one component, never `..`). */
export function childPathOf(folder: Place, name: string): string {
  return folder.handle ? `/proc/self/fd/${folder.handle.fd}/${name}` : join(folder.real, name);
}

/** The root folder, opened, and checked to still be the folder whose real path is `root`. */
export async function openRoot(root: string): Promise<Place> {
  if (!HELD_OPEN) return { real: root };
  const handle = await open(root, O_PATH | constants.O_DIRECTORY);
  const place = { real: root, handle };
  if ((await readlink(pathOf(place)).catch(() => '')) !== root) {
    await release(place);
    throw Object.assign(new Error(`the environment root ${root} was moved or replaced`), { code: 'ENOENT' });
  }
  return place;
}

/** `name` in `folder` without following a symlink there, with its lstat. Throws Node fs errors. */
export async function openChild(folder: Place, name: string): Promise<{ place: Place; stats: Stats }> {
  const real = join(folder.real, name);
  if (!HELD_OPEN) return { place: { real }, stats: await lstat(real) };
  const handle = await open(childPathOf(folder, name), O_PATH | constants.O_NOFOLLOW);
  try {
    return { place: { real, handle }, stats: await handle.stat() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The place's own lstat (a place held open is never a symlink that was followed). */
export function statOf(place: Place): Promise<Stats> {
  return place.handle ? place.handle.stat() : lstat(place.real);
}

/**
 * Opens a held file for reading or writing (`flags` without O_CREAT). On Linux this is the very
 * file the place holds, even if its path now leads elsewhere. O_NONBLOCK: a FIFO swapped in
 * cannot hang the server.
 */
export function reopen(place: Place, flags: number): Promise<FileHandle> {
  return open(pathOf(place), flags | constants.O_NONBLOCK | REOPEN_FLAGS);
}

/**
 * Creates `name` in `folder` and opens it for writing. O_EXCL and O_NOFOLLOW: never an existing
 * file, never through a symlink (EEXIST when something appeared there since the walk).
 */
export function createChild(folder: Place, name: string): Promise<FileHandle> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  return open(childPathOf(folder, name), flags, 0o666);
}

/** Where an open file really is (Linux), or undefined where that cannot be asked. */
export async function realPathOfOpen(handle: FileHandle): Promise<string | undefined> {
  return HELD_OPEN ? readlink(`/proc/self/fd/${handle.fd}`) : undefined;
}

export async function release(place: Place | undefined): Promise<void> {
  await place?.handle?.close().catch(() => {});
}

/**
 * A place held by a bare descriptor rather than a FileHandle, for a walk that opens every file
 * of a tree (grep): a synchronous open and fstat cost microseconds, a FileHandle's round trips
 * through the thread pool tens of them. The walk does a bounded number per turn of the event loop.
 */
export interface HeldEntry {
  real: string;
  /** On Linux, an O_PATH descriptor; elsewhere none (the real path, checked with lstat). */
  fd?: number;
}

/** The folder a Place holds, as a HeldEntry (still owned by the Place). */
export function heldEntryOf(place: Place): HeldEntry {
  return place.handle ? { real: place.real, fd: place.handle.fd } : { real: place.real };
}

export function entryPathOf(entry: HeldEntry): string {
  return entry.fd === undefined ? entry.real : `/proc/self/fd/${entry.fd}`;
}

/** `name` in `folder` without following a symlink there, with its lstat (synchronous). Throws Node fs errors. */
export function openChildEntry(folder: HeldEntry, name: string): { entry: HeldEntry; stats: Stats } {
  const real = join(folder.real, name);
  if (folder.fd === undefined) return { entry: { real }, stats: lstatSync(real) };
  const fd = openSync(`/proc/self/fd/${folder.fd}/${name}`, O_PATH | constants.O_NOFOLLOW);
  try {
    return { entry: { real, fd }, stats: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

export function releaseEntry(entry: HeldEntry): void {
  if (entry.fd !== undefined) closeSync(entry.fd);
}
