import { execFile } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { isInside } from './local-paths.ts';

/**
 * ripgrep opens what it finds below its starting folder by path, so a folder swapped for a
 * symlink while it walks could lead it outside the root. Where bubblewrap (`bwrap`) works, rg
 * therefore runs in a mount namespace holding only the system folders and the root, all
 * read-only: whatever a swapped symlink points to, outside the root there is nothing to read. Where it does not, rg runs as is (see README: an exec-server
 * without a usable sandbox confines nothing a command could not reach anyway).
 */
export interface RipgrepJail {
  /** The bwrap command line that runs rg with `args`, starting in `cwd` (a real path inside `root`). */
  wrap(root: string, cwd: string, args: string[]): { command: string; args: string[] };
}

/** Folders (or their symlinks, on merged-/usr systems) rg and its libraries need. */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32', '/etc/ld.so.cache'];

const probes = new Map<string, Promise<RipgrepJail | undefined>>();

/** The jail for this rg, once bwrap has been seen to run it (probed once per rg command). */
export function ripgrepJail(ripgrep: string): Promise<RipgrepJail | undefined> {
  let probe = probes.get(ripgrep);
  if (probe === undefined) {
    probe = probeJail(ripgrep);
    probes.set(ripgrep, probe);
  }
  return probe;
}

async function probeJail(ripgrep: string): Promise<RipgrepJail | undefined> {
  if (process.platform !== 'linux') return undefined;
  const program = findProgram(ripgrep);
  if (program === undefined) return undefined;
  const system = systemArguments(program);
  const jail: RipgrepJail = {
    wrap: (root, cwd, args) => ({
      command: 'bwrap',
      // A mount namespace is all rg needs: it runs no program and opens no socket (and each
      // further namespace adds milliseconds to every search).
      args: [...system, '--ro-bind', root, root, '--die-with-parent', '--new-session', '--chdir', cwd, '--', program, ...args],
    }),
  };
  const { command, args } = jail.wrap('/usr', '/usr', ['--version']);
  const works = await new Promise<boolean>((resolve) => execFile(command, args, { timeout: 10_000 }, (error) => resolve(error === null)));
  return works ? jail : undefined;
}

function systemArguments(program: string): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_PATHS) {
    const stats = lstatOrUndefined(path);
    if (stats?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stats) args.push('--ro-bind', path, path);
  }
  // An rg outside the system folders (say ~/.cargo/bin) is bound on its own.
  if (!SYSTEM_PATHS.some((path) => isInside(realOrSelf(path), program))) args.push('--ro-bind', program, program);
  return args;
}

/** The real path of an executable: as given when absolute, else the first match on PATH. */
function findProgram(name: string): string | undefined {
  const candidates = isAbsolute(name) ? [name] : (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
