import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ExecEnvironmentError } from '../environment.ts';
import { refusalOf, type FilePolicy } from './file-kinds.ts';
import { MAX_GREP_FILE_BYTES } from '../limits.ts';
import { entryPathOf, heldEntryOf, openChildEntry, releaseEntry, type HeldEntry, type Place } from './places.ts';
import { SKIPPED_FOLDERS } from './search.ts';

/** A file grep may search, held open (on Linux an O_PATH descriptor) until ripgrep has read it. */
export interface SearchableFile {
  /** Relative to the environment root, `/`-separated (what a match reports). */
  path: string;
  entry: HeldEntry;
}

export interface GrepWalkOptions {
  /** Whether a file, by its `/`-separated path under the search folder, passes glob_filter. */
  accepts: (underBase: string) => boolean;
  policy: FilePolicy;
}

/** Entries looked at between two turns of the event loop (each an open and an fstat, microseconds). */
const ENTRIES_PER_TURN = 256;

/** A folder being walked: its entries by name, and how far the walk has got. */
interface Frame {
  folder: HeldEntry;
  /** Closed when the walk leaves it (not the search folder itself, which its Place owns). */
  owned: boolean;
  relative: string;
  underBase: string;
  entries: Dirent[];
  next: number;
}

/**
 * The files a folder search reads, in ripgrep's --sort=path order (each folder's entries by name,
 * a sub-folder's files where its name falls), each opened without following a symlink, inside
 * the folder held before it, and checked on that descriptor: regular files only (never a FIFO,
 * socket or device, which are not even opened), with one name unless the policy allows hard
 * links, at most MAX_GREP_FILE_BYTES, passing glob_filter. So ripgrep, handed these
 * descriptors, reads exactly what was checked and never resolves a path itself. Symlinks are not
 * followed (as ripgrep's --no-follow), `.git` and `node_modules` are not entered, unreadable
 * folders are skipped. Whoever takes files releases them; `close` releases the walk's folders.
 */
export class GrepWalk {
  readonly #options: GrepWalkOptions;
  readonly #stack: Frame[] = [];
  readonly #base: { place: Place; relative: string };
  #started = false;

  constructor(base: Place, baseRelative: string, options: GrepWalkOptions) {
    this.#base = { place: base, relative: baseRelative };
    this.#options = options;
  }

  get done(): boolean {
    return this.#started && this.#stack.length === 0;
  }

  /** Up to `max` more files, in order; fewer once the walk ends (then `done`). */
  async take(max: number): Promise<SearchableFile[]> {
    const files: SearchableFile[] = [];
    try {
      if (!this.#started) {
        await this.#enter(heldEntryOf(this.#base.place), false, this.#base.relative, '');
        this.#started = true;
      }
      for (let looked = 0; files.length < max && this.#stack.length > 0; looked++) {
        if (looked > 0 && looked % ENTRIES_PER_TURN === 0) await nextTurn();
        const frame = this.#stack[this.#stack.length - 1];
        const entry = frame.entries[frame.next++];
        if (entry === undefined) this.#leave();
        else {
          const file = await this.#visit(frame, entry);
          if (file) files.push(file);
        }
      }
      return files;
    } catch (error) {
      files.forEach((file) => releaseEntry(file.entry));
      if (!outOfDescriptors(error)) throw error;
      // Never a file silently skipped: the search fails instead (the caller sizes batches to the limit).
      throw new ExecEnvironmentError('unavailable', `the exec-server has too many files open to search now (${(error as Error).message}): try again shortly, or raise its limit (ulimit -n)`);
    }
  }

  /** Releases the folders still held (an early stop). */
  close(): void {
    while (this.#stack.length > 0) this.#leave();
  }

  /** A sub-folder is entered; a file that passes is answered, held open. */
  async #visit(frame: Frame, dirent: Dirent): Promise<SearchableFile | undefined> {
    const path = join(frame.relative, dirent.name);
    const under = join(frame.underBase, dirent.name);
    // By the entry's type first: a symlink, FIFO, socket or device is passed over unopened.
    const folder = dirent.isDirectory() && !SKIPPED_FOLDERS.includes(dirent.name);
    if (!folder && !(dirent.isFile() && this.#options.accepts(under))) return undefined;
    let opened;
    try {
      opened = openChildEntry(frame.folder, dirent.name);
    } catch (error) {
      if (outOfDescriptors(error)) throw error;
      return undefined; // gone, or not ours to read
    }
    // Checked again on what was opened: the name may have been swapped since readdir.
    if (folder && opened.stats.isDirectory()) {
      await this.#enter(opened.entry, true, path, under).catch((error: unknown) => {
        releaseEntry(opened.entry);
        throw error;
      });
      return undefined;
    }
    if (!folder && refusalOf(opened.stats, this.#options.policy) === undefined && opened.stats.size <= MAX_GREP_FILE_BYTES) return { path, entry: opened.entry };
    releaseEntry(opened.entry);
    return undefined;
  }

  async #enter(folder: HeldEntry, owned: boolean, relative: string, underBase: string): Promise<void> {
    const entries = await readdir(entryPathOf(folder), { withFileTypes: true }).catch((error: unknown): Dirent[] => {
      if (outOfDescriptors(error)) throw error;
      return []; // unreadable: skipped
    });
    entries.sort((a, b) => compare(a.name, b.name));
    this.#stack.push({ folder, owned, relative, underBase, entries, next: 0 });
  }

  #leave(): void {
    const frame = this.#stack.pop();
    if (frame?.owned) releaseEntry(frame.folder);
  }
}

function outOfDescriptors(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

function join(relative: string, name: string): string {
  return relative === '' ? name : `${relative}/${name}`;
}

/** Code-unit order, the same on every machine (localeCompare is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
