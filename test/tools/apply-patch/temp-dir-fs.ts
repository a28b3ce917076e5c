/**
 * A PatchFileSystem over a real folder (Node only, for tests), plus the tree helpers the
 * conformance test needs: copy a folder and snapshot a whole tree byte for byte.
 */
import { copyFile, lstat, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import type { ExecErrorCode, FileStat } from '../../../lib/exec/environment.ts';
import type { PatchFileSystem } from '../../../lib/tools/apply-patch/index.ts';

const ERRNO_CODES: Record<string, ExecErrorCode> = {
  ENOENT: 'not_found',
  EISDIR: 'is_directory',
  EPERM: 'is_directory', // unlink on a folder (macOS)
  ENOTDIR: 'not_directory',
};

function toExecError(error: unknown): unknown {
  const errno = (error as { code?: unknown }).code;
  const code = typeof errno === 'string' ? ERRNO_CODES[errno] : undefined;
  return code === undefined ? error : new ExecEnvironmentError(code, String(error));
}

async function mapErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toExecError(error);
  }
}

export class TempDirFileSystem implements PatchFileSystem {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  readFile(path: string): Promise<Uint8Array> {
    return mapErrors(async () => new Uint8Array(await readFile(join(this.root, path))));
  }

  writeFile(path: string, content: Uint8Array): Promise<void> {
    return mapErrors(async () => {
      const target = join(this.root, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    });
  }

  deleteFile(path: string): Promise<void> {
    return mapErrors(() => unlink(join(this.root, path)));
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      const info = await lstat(join(this.root, path));
      const type = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
      return { type: info.isSymbolicLink() ? 'symlink' : type, size: info.size, mtime_ms: info.mtimeMs };
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw toExecError(error);
    }
  }
}

export async function copyTree(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { recursive: true });
      await copyTree(source, target);
    } else if (entry.isFile()) {
      await copyFile(source, target);
    }
  }
}

/**
 * Every folder and file under `root`, keyed by `/`-separated relative path. Files map to their
 * bytes as latin1 text (one char per byte), so comparisons are byte-exact yet diffs readable.
 */
export async function snapshotTree(root: string, prefix = ''): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  let entries;
  try {
    entries = await readdir(join(root, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return snapshot;
    throw error;
  }
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      snapshot[`${path}/`] = '<dir>';
      Object.assign(snapshot, await snapshotTree(root, path));
    } else if (entry.isFile()) {
      snapshot[path] = (await readFile(join(root, path))).toString('latin1');
    }
  }
  return snapshot;
}
