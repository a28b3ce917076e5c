/** An in-memory PatchFileSystem for unit tests: files as bytes, folders implied or explicit. */
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import type { FileStat } from '../../../lib/exec/environment.ts';
import type { PatchFileSystem } from '../../../lib/tools/apply-patch/index.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function parents(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

export class MemoryFileSystem implements PatchFileSystem {
  readonly files = new Map<string, Uint8Array>();
  readonly directories = new Set<string>();

  constructor(files: Record<string, string | Uint8Array> = {}) {
    for (const [path, content] of Object.entries(files)) this.put(path, content);
  }

  put(path: string, content: string | Uint8Array): void {
    for (const parent of parents(path)) this.directories.add(parent);
    this.files.set(path, typeof content === 'string' ? encoder.encode(content) : content);
  }

  text(path: string): string | undefined {
    const bytes = this.files.get(path);
    return bytes === undefined ? undefined : decoder.decode(bytes);
  }

  async readFile(path: string): Promise<Uint8Array> {
    if (this.directories.has(path)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    const bytes = this.files.get(path);
    if (bytes === undefined) throw new ExecEnvironmentError('not_found', `${path} not found`);
    return bytes;
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    if (this.directories.has(path)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    this.put(path, content);
  }

  async deleteFile(path: string): Promise<void> {
    if (this.directories.has(path)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    if (!this.files.delete(path)) throw new ExecEnvironmentError('not_found', `${path} not found`);
  }

  async stat(path: string): Promise<FileStat | null> {
    if (this.directories.has(path)) return { type: 'directory', size: 0, mtime_ms: 0 };
    const bytes = this.files.get(path);
    return bytes === undefined ? null : { type: 'file', size: bytes.byteLength, mtime_ms: 0 };
  }
}
