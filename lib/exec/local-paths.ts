import { realpathSync, statSync } from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ExecEnvironmentError } from './environment.ts';
import { fsError, isMissing } from './local-errors.ts';

/** A caller's path, checked to lie inside the root. */
export interface RootedPath {
  /** As the caller wrote it; messages quote this. */
  requested: string;
  /** Relative to the root, `/`-separated; '' is the root itself. */
  relative: string;
  /** Parent folders' symlinks resolved, the last component not: delete and rename act on the entry itself. */
  entry: string;
  /** Every symlink resolved: reads and writes act on what the path finally names. */
  target: string;
}

/** Symlink hops before a path counts as a loop (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Confines paths to one root folder. A path is refused when it leaves the root lexically
 * (`..`, an absolute path elsewhere) or through a symbolic link: the real location of the
 * deepest part that exists must be inside the root, and a dangling link is followed to where a
 * write would create its target. So a write through a symlinked folder cannot land outside.
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

  async resolve(requested: string): Promise<RootedPath> {
    const lexical = this.#lexical(requested);
    const entry = join(await realLocation(dirname(lexical), requested), basename(lexical));
    const target = await realLocation(lexical, requested);
    if (!isInside(this.root, entry) || !isInside(this.root, target)) {
      throw new ExecEnvironmentError(
        'outside_root',
        `${JSON.stringify(requested)} leads through a symbolic link to outside the environment root: use a path whose real location is inside the root`,
      );
    }
    return { requested, relative: toSlashes(relative(this.root, lexical)), entry: lexical === this.root ? this.root : entry, target };
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

/**
 * Where a path really is: realpath for what exists; for what does not, the real location of
 * its parent plus its name, following a dangling symlink to the target a write would create.
 */
async function realLocation(path: string, requested: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw fsError(Object.assign(new Error('loop'), { code: 'ELOOP' }), requested);
  try {
    return await realpath(path);
  } catch (error) {
    if (!isMissing(error)) throw fsError(error, requested);
  }
  const link = await readlink(path).catch(() => null);
  if (link !== null) return realLocation(resolve(dirname(path), link), requested, hops + 1);
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realLocation(parent, requested, hops), basename(path));
}
