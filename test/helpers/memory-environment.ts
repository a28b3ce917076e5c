/**
 * An in-memory ExecutionEnvironment for unit tests. Files are bytes with a modification time
 * from a counter (so "newest first" is deterministic); folders are implied by files or made
 * explicitly. Paths behave like the real port's: relative to the root, "./" and "." allowed,
 * absolute only inside the root, ".." may not climb out. execCommand answers from a script.
 * `fail(method, error)` makes one method throw, to test error mapping.
 */
import { ExecEnvironmentError } from '../../lib/exec/environment.ts';
import type {
  DirectoryEntry,
  ExecOptions,
  ExecResult,
  ExecutionEnvironment,
  FileStat,
  GlobMatch,
  GrepMatch,
  GrepOptions,
} from '../../lib/exec/environment.ts';

export const MEMORY_ROOT = '/workspace';

export type ExecScript = (command: string, options: ExecOptions) => Partial<ExecResult> | Promise<Partial<ExecResult>>;

type Method = keyof ExecutionEnvironment;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** "**" any folders, "*" and "?" within one path segment; a pattern without "/" matches the base name. */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

function matchesGlob(pattern: string, path: string): boolean {
  const target = pattern.includes('/') ? path : path.slice(path.lastIndexOf('/') + 1);
  return globToRegExp(pattern).test(target);
}

export class MemoryEnvironment implements ExecutionEnvironment {
  readonly files = new Map<string, { bytes: Uint8Array; mtime_ms: number }>();
  readonly directories = new Set<string>();
  readonly commands: { command: string; options: ExecOptions }[] = [];
  script: ExecScript = () => ({});
  #clock = 1_700_000_000_000;
  readonly #failures = new Map<Method, unknown>();

  constructor(files: Record<string, string | Uint8Array> = {}) {
    for (const [path, content] of Object.entries(files)) this.put(path, content);
  }

  // -- test controls ------------------------------------------------------------------------

  put(path: string, content: string | Uint8Array, mtime_ms?: number): void {
    const key = this.resolve(path);
    this.#addParents(key);
    this.#clock += 1000;
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    this.files.set(key, { bytes, mtime_ms: mtime_ms ?? this.#clock });
  }

  mkdir(path: string): void {
    const key = this.resolve(path);
    this.#addParents(key);
    this.directories.add(key);
  }

  text(path: string): string | undefined {
    const file = this.files.get(this.resolve(path));
    return file === undefined ? undefined : decoder.decode(file.bytes);
  }

  bytes(path: string): Uint8Array | undefined {
    return this.files.get(this.resolve(path))?.bytes;
  }

  fail(method: Method, error: unknown): void {
    this.#failures.set(method, error);
  }

  /** The root-relative key of a path ("" is the root); throws like the real port for bad paths. */
  resolve(path: string): string {
    if (path.includes('\0')) throw new ExecEnvironmentError('invalid_path', 'path contains a NUL byte');
    let relative = path;
    if (path.startsWith('/')) {
      if (path !== MEMORY_ROOT && !path.startsWith(`${MEMORY_ROOT}/`)) {
        throw new ExecEnvironmentError('outside_root', `${path} is outside ${MEMORY_ROOT}`);
      }
      relative = path.slice(MEMORY_ROOT.length);
    }
    const parts: string[] = [];
    for (const part of relative.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (parts.length === 0) throw new ExecEnvironmentError('outside_root', `${path} is outside ${MEMORY_ROOT}`);
        parts.pop();
      } else parts.push(part);
    }
    return parts.join('/');
  }

  #addParents(key: string): void {
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (this.files.has(parent)) throw new ExecEnvironmentError('not_directory', `${parent} is a file`);
      this.directories.add(parent);
    }
  }

  #isDirectory(key: string): boolean {
    return key === '' || this.directories.has(key);
  }

  #check(method: Method): void {
    if (this.#failures.has(method)) throw this.#failures.get(method);
  }

  #filesUnder(key: string): string[] {
    if (this.files.has(key)) return [key];
    if (!this.#isDirectory(key)) throw new ExecEnvironmentError('not_found', `${key} not found`);
    const prefix = key === '' ? '' : `${key}/`;
    return [...this.files.keys()].filter((path) => path.startsWith(prefix)).sort();
  }

  // -- the port -----------------------------------------------------------------------------

  async readFile(path: string): Promise<Uint8Array> {
    this.#check('readFile');
    const key = this.resolve(path);
    if (this.#isDirectory(key)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    const file = this.files.get(key);
    if (file === undefined) throw new ExecEnvironmentError('not_found', `${path} not found`);
    return file.bytes;
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    this.#check('writeFile');
    const key = this.resolve(path);
    if (this.#isDirectory(key)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    this.put(key, content);
  }

  async deleteFile(path: string): Promise<void> {
    this.#check('deleteFile');
    const key = this.resolve(path);
    if (this.#isDirectory(key)) throw new ExecEnvironmentError('is_directory', `${path} is a directory`);
    if (!this.files.delete(key)) throw new ExecEnvironmentError('not_found', `${path} not found`);
  }

  async moveFile(from: string, to: string): Promise<void> {
    this.#check('moveFile');
    const bytes = await this.readFile(from);
    await this.writeFile(to, bytes);
    this.files.delete(this.resolve(from));
  }

  async fileExists(path: string): Promise<boolean> {
    this.#check('fileExists');
    return this.files.has(this.resolve(path));
  }

  async stat(path: string): Promise<FileStat | null> {
    this.#check('stat');
    const key = this.resolve(path);
    if (this.#isDirectory(key)) return { type: 'directory', size: 0, mtime_ms: 0 };
    const file = this.files.get(key);
    return file === undefined ? null : { type: 'file', size: file.bytes.byteLength, mtime_ms: file.mtime_ms };
  }

  async listDirectory(path: string, depth: number): Promise<DirectoryEntry[]> {
    this.#check('listDirectory');
    const key = this.resolve(path);
    if (!this.#isDirectory(key)) throw new ExecEnvironmentError('not_directory', `${path} is not a directory`);
    const prefix = key === '' ? '' : `${key}/`;
    const levels = (p: string) => p.slice(prefix.length).split('/').length;
    const entries: DirectoryEntry[] = [];
    for (const dir of this.directories) {
      if (dir.startsWith(prefix) && dir !== key && levels(dir) <= depth) entries.push({ path: dir, type: 'directory', size: 0 });
    }
    for (const [file, { bytes }] of this.files) {
      if (file.startsWith(prefix) && levels(file) <= depth) entries.push({ path: file, type: 'file', size: bytes.byteLength });
    }
    return entries.sort((a, b) => a.path.localeCompare(b.path));
  }

  async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.#check('execCommand');
    this.commands.push({ command, options });
    const scripted = await this.script(command, options);
    return {
      exit_code: 0,
      signal: null,
      stdout: '',
      stderr: '',
      timed_out: false,
      duration_ms: 5,
      output_capped: false,
      ...scripted,
    };
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    this.#check('grep');
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, options.case_insensitive ? 'i' : '');
    } catch (error) {
      throw new ExecEnvironmentError('invalid_request', (error as Error).message);
    }
    const matches: GrepMatch[] = [];
    const limit = options.max_results ?? Infinity;
    for (const file of this.#filesUnder(this.resolve(path))) {
      if (options.glob_filter !== undefined && !matchesGlob(options.glob_filter, file)) continue;
      const lines = decoder.decode(this.files.get(file)?.bytes).split('\n');
      for (let i = 0; i < lines.length && matches.length < limit; i++) {
        if (regex.test(lines[i])) matches.push({ path: file, line: i + 1, text: lines[i] });
      }
    }
    return matches;
  }

  async glob(pattern: string, path: string): Promise<GlobMatch[]> {
    this.#check('glob');
    const key = this.resolve(path);
    if (!this.#isDirectory(key)) {
      throw new ExecEnvironmentError(this.files.has(key) ? 'not_directory' : 'not_found', `${path} is not a directory`);
    }
    const prefix = key === '' ? '' : `${key}/`;
    const regex = globToRegExp(pattern);
    return this.#filesUnder(key)
      .filter((file) => regex.test(file.slice(prefix.length)))
      .map((file) => ({ path: file, mtime_ms: this.files.get(file)?.mtime_ms ?? 0 }))
      .sort((a, b) => b.mtime_ms - a.mtime_ms);
  }

  async workingDirectory(): Promise<string> {
    return MEMORY_ROOT;
  }

  async platform(): Promise<string> {
    return 'memory';
  }
}
