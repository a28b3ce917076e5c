import type { Stats } from 'node:fs';
import { ExecEnvironmentError } from '../environment.ts';
import { fsError } from './errors.ts';

/**
 * Which files the file operations (read, write, grep, and what is built on them) act on: regular
 * files and folders, nothing else.
 * - A FIFO, socket or device is refused before anything opens it: opening a FIFO blocks until
 *   someone writes, and a device can answer forever (/dev/zero), either of which would hold one
 *   of the exec-server's few file-operation slots.
 * - A regular file with more than one name (a hard link) is refused too: its other name may lie
 *   outside the root (a hard link left by a checkout step or a shared volume), and nothing in the
 *   file says which name is the real one. The operator may allow them (exec-server
 *   --allow-hard-links), for a workspace whose package manager links files from a store.
 * Each check is made on the descriptor about to be used (fstat), not only on the path.
 */
export interface FilePolicy {
  /** Files with more than one hard link are read, searched and written in place (--allow-hard-links). */
  allowHardLinks: boolean;
}

/** Why the file operations may not use this file's content, or undefined when they may. */
export function refusalOf(stats: Stats, policy: FilePolicy): 'special' | 'hard_link' | undefined {
  if (!stats.isFile()) return 'special';
  if (stats.nlink > 1 && !policy.allowHardLinks) return 'hard_link';
  return undefined;
}

/** Throws unless `stats` is a file whose content may be used: is_directory for a folder, invalid_path for the rest. */
export function requireUsableFile(stats: Stats, path: string, policy: FilePolicy): void {
  if (stats.isDirectory()) throw fsError(Object.assign(new Error('folder'), { code: 'EISDIR' }), path);
  const refusal = refusalOf(stats, policy);
  if (refusal === 'special') throw specialFileRefused(path);
  if (refusal === 'hard_link') {
    throw new ExecEnvironmentError(
      'invalid_path',
      `${JSON.stringify(path)} has ${stats.nlink} hard links (names), so the same file may also sit outside the environment root: ` +
        "the file tools neither read nor write such files. Use a file with one name; the exec-server's operator can allow hard links (--allow-hard-links)",
    );
  }
}

/** A FIFO, socket or device (never opened); also for a deletion or move, which act on regular files and symlinks only. */
export function specialFileRefused(path: string): ExecEnvironmentError {
  return new ExecEnvironmentError(
    'invalid_path',
    `${JSON.stringify(path)} is not a regular file (a FIFO, socket or device), which the file tools never open: name a regular file`,
  );
}

/** Folders, regular files and symlinks: what a deletion or move may act on. */
export function isOrdinaryEntry(stats: Stats): boolean {
  return stats.isFile() || stats.isDirectory() || stats.isSymbolicLink();
}
