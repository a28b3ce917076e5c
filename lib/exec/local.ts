import { lstat, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Stats } from 'node:fs';
import {
  ExecEnvironmentError,
  type DirectoryEntry,
  type EntryType,
  type ExecOptions,
  type ExecResult,
  type ExecutionEnvironment,
  type FileStat,
  type GlobMatch,
  type GrepMatch,
  type GrepOptions,
} from './environment.ts';
import { DEFAULT_EXEC_TIMEOUT_MS, DEFAULT_GREP_MAX_RESULTS, DEFAULT_MAX_OUTPUT_BYTES, MAX_EXEC_TIMEOUT_MS } from './limits.ts';
import { RefusedCommands, type CommandSandbox } from './command-sandbox.ts';
import { runCommand } from './local-command.ts';
import { fsError, isMissing } from './local-errors.ts';
import { PathSandbox, type RootedPath } from './local-paths.ts';
import { compilePattern, findFiles, globFiles, grepFiles, matchesFilter, skipUsualFolders, type FoundFile } from './local-search.ts';

export interface LocalExecutionEnvironmentOptions {
  /** Bytes of stdout, and separately of stderr, kept per command (the head). Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * How commands are confined (see command-sandbox.ts and sandbox-probe.ts): a BubblewrapSandbox,
   * UnsandboxedCommands (an explicit choice), or by default none, so commands are refused.
   */
  sandbox?: CommandSandbox;
}

/**
 * The ExecutionEnvironment on this machine's disk, confined to one root folder (Node only; the
 * exec-server serves it). File operations cannot leave the root (see PathSandbox); commands run
 * in the sandbox given as an option, which sees the root and the system folders and nothing else
 * of the host (see bubblewrap.ts), and without one they are refused.
 */
export class LocalExecutionEnvironment implements ExecutionEnvironment {
  readonly #paths: PathSandbox;
  readonly #maxOutputBytes: number;
  readonly #sandbox: CommandSandbox;

  constructor(root: string, options: LocalExecutionEnvironmentOptions = {}) {
    this.#paths = new PathSandbox(root);
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.#sandbox = options.sandbox ?? new RefusedCommands('no sandbox was given to this LocalExecutionEnvironment');
  }

  async readFile(path: string): Promise<Uint8Array> {
    const { target } = await this.#paths.resolve(path);
    const bytes = await readFile(target).catch((error: unknown) => Promise.reject(fsError(error, path)));
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    if (!(content instanceof Uint8Array)) throw new ExecEnvironmentError('invalid_request', 'writeFile content must be bytes (a Uint8Array)');
    const resolved = await this.#paths.resolve(path);
    if (resolved.relative === '') throw rootRefused('written to', path);
    try {
      await mkdir(dirname(resolved.target), { recursive: true });
      await writeFile(resolved.target, content);
    } catch (error) {
      throw fsError(error, path);
    }
  }

  async deleteFile(path: string): Promise<void> {
    const resolved = await this.#paths.resolve(path);
    if (resolved.relative === '') throw rootRefused('deleted', path);
    try {
      if ((await lstat(resolved.entry)).isDirectory()) {
        throw new ExecEnvironmentError('is_directory', `${JSON.stringify(path)} is a folder: deleteFile removes files only (use a command such as "rm -r" for folders)`);
      }
      await unlink(resolved.entry);
    } catch (error) {
      throw fsError(error, path);
    }
  }

  async moveFile(from: string, to: string): Promise<void> {
    const source = await this.#paths.resolve(from);
    const destination = await this.#paths.resolve(to);
    if (source.relative === '') throw rootRefused('moved', from);
    if (destination.relative === '') throw rootRefused('replaced', to);
    await lstat(source.entry).catch((error: unknown) => Promise.reject(fsError(error, from)));
    try {
      await mkdir(dirname(destination.entry), { recursive: true });
      await rename(source.entry, destination.entry);
    } catch (error) {
      throw fsError(error, to);
    }
  }

  async fileExists(path: string): Promise<boolean> {
    return (await this.stat(path)) !== null;
  }

  async stat(path: string): Promise<FileStat | null> {
    const { target } = await this.#paths.resolve(path);
    try {
      const stats = await stat(target);
      return { type: entryType(stats), size: stats.size, mtime_ms: Math.floor(stats.mtimeMs) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw fsError(error, path);
    }
  }

  async listDirectory(path: string, depth: number): Promise<DirectoryEntry[]> {
    if (!Number.isInteger(depth) || depth < 1) {
      throw new ExecEnvironmentError('invalid_request', `listDirectory depth must be a whole number of at least 1 (1 = the folder's own entries), got ${depth}`);
    }
    const folder = await this.#folder(path);
    const entries: DirectoryEntry[] = [];
    await listInto(folder.target, folder.relative, depth, entries);
    return entries;
  }

  async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
      throw new ExecEnvironmentError('invalid_request', 'execCommand needs a non-empty command string without NUL bytes');
    }
    const timeoutMs = options.timeout_ms ?? DEFAULT_EXEC_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_EXEC_TIMEOUT_MS) {
      throw new ExecEnvironmentError('invalid_request', `timeout_ms must be a whole number of milliseconds from 1 to ${MAX_EXEC_TIMEOUT_MS}, got ${timeoutMs}`);
    }
    const readOnly = flag(options, 'read_only');
    const network = flag(options, 'network');
    const cwd = await this.#folder(options.cwd ?? '');
    const request = { command, workspace: this.#paths.root, cwd: cwd.target, env: options.env, readOnly, network };
    return this.#sandbox.run(request, (spec) => runCommand({ ...spec, timeoutMs, maxOutputBytes: this.#maxOutputBytes }));
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const limit = options.max_results ?? DEFAULT_GREP_MAX_RESULTS;
    if (!Number.isInteger(limit) || limit < 1) throw new ExecEnvironmentError('invalid_request', `max_results must be a whole number of at least 1, got ${limit}`);
    const regex = compilePattern(pattern, options.case_insensitive === true);
    const files = await this.#filesUnder(path, skipUsualFolders());
    return grepFiles(files.filter((file) => matchesFilter(file, options.glob_filter)), regex, limit);
  }

  async glob(pattern: string, path: string): Promise<GlobMatch[]> {
    if (typeof pattern !== 'string' || pattern === '') throw new ExecEnvironmentError('invalid_request', 'glob needs a non-empty pattern such as "**/*.ts"');
    const folder = await this.#folder(path);
    return globFiles(await findFiles(folder.target, folder.relative, skipUsualFolders(pattern)), pattern);
  }

  async workingDirectory(): Promise<string> {
    return this.#paths.root;
  }

  async platform(): Promise<string> {
    return process.platform;
  }

  /** A path that must name an existing folder. */
  async #folder(path: string): Promise<RootedPath> {
    const resolved = await this.#paths.resolve(path);
    const stats = await stat(resolved.target).catch((error: unknown) => Promise.reject(fsError(error, path)));
    if (!stats.isDirectory()) throw new ExecEnvironmentError('not_directory', `${JSON.stringify(path)} is a file, not a folder: name a folder`);
    return resolved;
  }

  /** The files a search covers: the path itself when it is a file, else the files under it. */
  async #filesUnder(path: string, skipFolder: (name: string) => boolean): Promise<FoundFile[]> {
    const resolved = await this.#paths.resolve(path);
    const stats = await stat(resolved.target).catch((error: unknown) => Promise.reject(fsError(error, path)));
    if (stats.isDirectory()) return findFiles(resolved.target, resolved.relative, skipFolder);
    const name = resolved.relative.slice(resolved.relative.lastIndexOf('/') + 1);
    return [{ absolute: resolved.target, path: resolved.relative, underBase: name, size: stats.size, mtime_ms: Math.floor(stats.mtimeMs) }];
  }
}

/** Depth-first, each folder's entries sorted by name, so a tree reads top to bottom. Symlinks are listed, never followed. */
async function listInto(folder: string, relative: string, depthLeft: number, entries: DirectoryEntry[]): Promise<void> {
  const names = (await readdir(folder).catch((error: unknown) => Promise.reject(fsError(error, relative || '.')))).sort();
  for (const name of names) {
    const absolute = join(folder, name);
    const stats = await lstat(absolute).catch(() => null);
    if (!stats) continue;
    const path = relative === '' ? name : `${relative}/${name}`;
    entries.push({ path, type: entryType(stats), size: stats.size });
    if (stats.isDirectory() && depthLeft > 1) await listInto(absolute, path, depthLeft - 1, entries);
  }
}

function entryType(stats: Stats): EntryType {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** An optional true/false option; absent is false. */
function flag(options: ExecOptions, name: 'read_only' | 'network'): boolean {
  const value: unknown = options[name];
  if (value !== undefined && typeof value !== 'boolean') throw new ExecEnvironmentError('invalid_request', `${name} must be true or false, got ${JSON.stringify(value)}`);
  return value === true;
}

function rootRefused(done: string, path: string): ExecEnvironmentError {
  return new ExecEnvironmentError('invalid_path', `${JSON.stringify(path)} is the environment root itself, which cannot be ${done}: name a file inside it`);
}
