import { realpathSync, statSync, type Stats } from 'node:fs';
import { mkdir, readlink } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ExecEnvironmentError } from '../environment.ts';
import { fsError, isMissing } from './errors.ts';
import { childPathOf, openChild, openRoot, release, statOf, type Place } from './places.ts';

/** What a caller's path leads to, found inside the root and held open while it is used. */
export type Lookup = Found | Missing;

export interface Found {
  kind: 'found';
  /** The entry (its symlinks followed, unless the last one was asked to stay unfollowed). */
  place: Place;
  /** lstat of the entry: a symlink only when the last one was not followed. */
  stats: Stats;
  /** The folder holding the entry, and its name there; no folder for the root itself. */
  folder?: Place;
  name: string;
}

/** The last name does not exist, in a folder that does. */
export interface Missing {
  kind: 'missing';
  folder: Place;
  name: string;
}

export interface LookupOptions {
  /** Follow a symlink in the last position (reads, writes); default true. Delete and rename act on the link itself. */
  followLast?: boolean;
  /** Create missing folders on the way (writes, the destination of a move). */
  createFolders?: boolean;
}

/** Symlink hops before a path counts as a loop (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Confines paths to one root folder. A path is refused when it leaves the root lexically
 * (`..`, an absolute path elsewhere) or through a symbolic link. The path is walked from the
 * root one name at a time (see local-places.ts): each name is opened inside the folder held
 * before it without following a symlink; a symlink's target is read and walked again from the
 * root, and refused when it lies outside. So what is used is what was checked, even while
 * another process swaps folders for symlinks, and a write cannot land outside.
 */
export class PathSandbox {
  /** The root's real path (symlinks resolved). */
  readonly root: string;
  /** Spellings of the root an absolute path may start with: as given, and real. */
  readonly #rootSpellings: string[];

  constructor(root: string) {
    const given = resolve(root);
    let real: string;
    try {
      real = realpathSync(given);
    } catch {
      throw new Error(`the root folder ${given} does not exist: create it or name an existing folder`);
    }
    if (!statSync(real).isDirectory()) throw new Error(`the root ${given} is not a folder: name a folder`);
    this.root = real;
    this.#rootSpellings = given === real ? [real] : [real, given];
  }

  /** The caller's path relative to the root, `/`-separated ('' for the root), checked by text alone. */
  relative(requested: string): string {
    return toSlashes(relative(this.root, this.#lexical(requested)));
  }

  /**
   * Finds what the path leads to and hands it to `use` while it is held open; everything held
   * is released afterwards. A missing folder on the way is not_found (or created, when asked).
   */
  async use<T>(requested: string, options: LookupOptions, use: (lookup: Lookup) => Promise<T>): Promise<T> {
    const lookup = await this.#walk(requested, this.#components(this.#lexical(requested)), options);
    try {
      return await use(lookup);
    } finally {
      if (lookup.kind === 'found') await release(lookup.place);
      await release(lookup.folder);
    }
  }

  /**
   * One name at a time from the root, each opened inside the folder held before it. A symlink
   * is read, and its target walked again from the root; a missing folder is created when asked.
   * A name that changes under the walk is looked at again, within the same budget as symlink
   * hops, so a process changing it forever makes the walk fail, not spin.
   */
  async #walk(requested: string, components: string[], options: LookupOptions): Promise<Lookup> {
    const failed = (error: unknown) => Promise.reject(fsError(error, requested));
    const pending = [...components];
    let folder = await openRoot(this.root).catch(failed);
    let steps = 0;
    let created: string | undefined;
    const countStep = () => {
      if (++steps > MAX_SYMLINK_HOPS) throw fsError(Object.assign(new Error('loop'), { code: 'ELOOP' }), requested);
    };
    try {
      while (pending.length > 0) {
        const name = pending.shift() as string;
        const last = pending.length === 0;
        const child = await openChild(folder, name).catch((error: unknown) => (isMissing(error) ? undefined : failed(error)));
        if (child === undefined) {
          if (last) return { kind: 'missing', folder, name };
          if (!options.createFolders) throw fsError(Object.assign(new Error('missing'), { code: 'ENOENT' }), requested);
          // Created just now and gone again: someone is removing it; that counts against the budget.
          if (created === join(folder.real, name)) countStep();
          await mkdir(childPathOf(folder, name)).catch((error: unknown) => ((error as NodeJS.ErrnoException).code === 'EEXIST' ? undefined : failed(error)));
          created = join(folder.real, name);
          pending.unshift(name);
          continue;
        }
        if (child.stats.isSymbolicLink() && (!last || options.followLast !== false)) {
          await release(child.place);
          // Read by name: Node cannot read a link through its handle. Whatever is read is walked
          // and checked from the root again; when the link is gone or changed, look again.
          const target = await readlink(childPathOf(folder, name)).catch((error: unknown) => (isChanged(error) ? undefined : failed(error)));
          countStep();
          pending.unshift(...(target === undefined ? [name] : this.#linkTarget(folder.real, target, requested)));
          if (target === undefined) continue;
          await release(folder);
          folder = await openRoot(this.root).catch(failed);
          continue;
        }
        if (last) return { kind: 'found', place: child.place, stats: child.stats, folder, name };
        if (!child.stats.isDirectory()) {
          await release(child.place);
          throw fsError(Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }), requested);
        }
        await release(folder);
        folder = child.place;
      }
      // The path is the root itself (or a symlink to it).
      return { kind: 'found', place: folder, stats: await statOf(folder), name: '' };
    } catch (error) {
      await release(folder);
      throw error;
    }
  }

  /**
   * The components, under the root, of where a symlink in `folderReal` points: resolved by text
   * (`..` in the link's text included), and refused when that is outside the root.
   */
  #linkTarget(folderReal: string, target: string, requested: string): string[] {
    const absolute = resolve(folderReal, target);
    const spelling = this.#rootSpellings.find((root) => isInside(root, absolute));
    if (spelling === undefined) {
      throw new ExecEnvironmentError(
        'outside_root',
        `${JSON.stringify(requested)} leads through a symbolic link to outside the environment root: use a path whose real location is inside the root`,
      );
    }
    return this.#components(join(this.root, relative(spelling, absolute)));
  }

  #components(absolute: string): string[] {
    return relative(this.root, absolute).split(sep).filter((part) => part !== '');
  }

  /** The absolute path under the real root, `..` resolved by text alone. */
  #lexical(requested: string): string {
    if (typeof requested !== 'string') throw new ExecEnvironmentError('invalid_path', 'a path must be a string');
    if (requested.includes('\0')) {
      throw new ExecEnvironmentError('invalid_path', `the path ${JSON.stringify(requested)} contains a NUL byte: remove it`);
    }
    if (isAbsolute(requested)) {
      const absolute = resolve(requested);
      const spelling = this.#rootSpellings.find((root) => isInside(root, absolute));
      if (spelling !== undefined) return join(this.root, relative(spelling, absolute));
    } else {
      const absolute = resolve(this.root, requested);
      if (isInside(this.root, absolute)) return absolute;
    }
    throw new ExecEnvironmentError(
      'outside_root',
      `${JSON.stringify(requested)} is outside the environment root: use a path relative to the root, such as "src/index.ts"`,
    );
  }
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export function toSlashes(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** readlink found no link where one was a moment ago (removed, or replaced by a file or folder). */
function isChanged(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'EINVAL';
}
