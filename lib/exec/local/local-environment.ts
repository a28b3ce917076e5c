import {
  ExecEnvironmentError,
  type Cancellable,
  type DirectoryEntry,
  type ExecOptions,
  type ExecResult,
  type ExecutionEnvironment,
  type FileStat,
  type GlobMatch,
  type GrepMatch,
  type GrepOptions,
} from '../environment.ts';
import { RefusedCommands, type CommandSandbox, type ProcessSpec } from '../sandbox/command-sandbox.ts';
import { DEFAULT_EXEC_TIMEOUT_MS, DEFAULT_GREP_MAX_RESULTS, DEFAULT_GREP_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES, MAX_EXEC_TIMEOUT_MS, MAX_READ_FILE_BYTES } from '../limits.ts';
import { runCommand } from './command.ts';
import type { FilePolicy } from './file-kinds.ts';
import { deleteRootedFile, listRootedFolder, moveRootedFile, readRootedFile, requireFolder, statRooted, writeRootedFile } from './files.ts';
import { grepRooted } from './grep-search.ts';
import { PathSandbox } from './paths.ts';
import { pathOf } from './places.ts';
import { compileGlob, compileGlobFilter } from './glob.ts';
import { findFiles, globFiles, skipUsualFolders } from './search.ts';

export interface LocalExecutionEnvironmentOptions {
  /** Bytes of stdout, and separately of stderr, kept per command (the head). Default 1 MiB. */
  maxOutputBytes?: number;
  /** readFile refuses larger files (invalid_request); default MAX_READ_FILE_BYTES (32 MiB). */
  maxReadBytes?: number;
  /**
   * How commands are confined (see command-sandbox.ts and local-sandbox-probe.ts): a BubblewrapSandbox,
   * UnsandboxedCommands (an explicit choice), or by default none, so commands are refused.
   */
  sandbox?: CommandSandbox;
  /** The ripgrep executable grep runs; default `rg` on PATH. */
  ripgrep?: string;
  /** How long a grep may run before ripgrep is killed; default DEFAULT_GREP_TIMEOUT_MS. */
  grepTimeoutMs?: number;
  /**
   * Read, search and write files that have more than one hard link (exec-server
   * --allow-hard-links); default false: refused, since another name may lie outside the root.
   */
  allowHardLinks?: boolean;
}

/**
 * The ExecutionEnvironment on this machine's disk, confined to one root folder (Node only; the
 * exec-server serves it). File operations cannot leave the root, even racing a folder swapped
 * for a symlink (see PathSandbox); grep runs ripgrep (see local-grep.ts). Commands run in the
 * sandbox given as an option, which sees the root and the system folders and nothing else of
 * the host (see local-bubblewrap.ts); without one they are refused.
 */
export class LocalExecutionEnvironment implements ExecutionEnvironment {
  readonly #paths: PathSandbox;
  readonly #maxOutputBytes: number;
  readonly #maxReadBytes: number;
  readonly #sandbox: CommandSandbox;
  readonly #ripgrep: string;
  readonly #grepTimeoutMs: number;
  readonly #files: FilePolicy;

  constructor(root: string, options: LocalExecutionEnvironmentOptions = {}) {
    this.#paths = new PathSandbox(root);
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.#maxReadBytes = options.maxReadBytes ?? MAX_READ_FILE_BYTES;
    this.#sandbox = options.sandbox ?? new RefusedCommands('no sandbox was given to this LocalExecutionEnvironment');
    this.#ripgrep = options.ripgrep ?? 'rg';
    this.#grepTimeoutMs = options.grepTimeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
    this.#files = { allowHardLinks: options.allowHardLinks === true };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return readRootedFile(this.#paths, path, this.#maxReadBytes, this.#files);
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    if (!(content instanceof Uint8Array)) throw new ExecEnvironmentError('invalid_request', 'writeFile content must be bytes (a Uint8Array)');
    await writeRootedFile(this.#paths, path, content, this.#files);
  }

  async deleteFile(path: string): Promise<void> {
    await deleteRootedFile(this.#paths, path);
  }

  async moveFile(from: string, to: string): Promise<void> {
    await moveRootedFile(this.#paths, from, to);
  }

  async fileExists(path: string): Promise<boolean> {
    return (await this.stat(path)) !== null;
  }

  async stat(path: string): Promise<FileStat | null> {
    return statRooted(this.#paths, path);
  }

  async listDirectory(path: string, depth: number): Promise<DirectoryEntry[]> {
    if (!Number.isInteger(depth) || depth < 1) {
      throw new ExecEnvironmentError('invalid_request', `listDirectory depth must be a whole number of at least 1 (1 = the folder's own entries), got ${depth}`);
    }
    return listRootedFolder(this.#paths, path, depth);
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
    const { signal } = options;
    return this.#inFolder(options.cwd ?? '', (cwd) => {
      const request = { command, workspace: this.#paths.root, cwd: cwd.cwd, env: options.env, readOnly, network, timeoutMs, tenant: options.tenant };
      // The held folder is entered only by a process started right here (unsandboxed); bwrap gets the real path.
      const held = (spec: ProcessSpec) => (spec.cwd === cwd.cwd && cwd.heldCwd ? { heldCwd: cwd.heldCwd } : {});
      return this.#sandbox.run(request, (spec) => runCommand({ ...spec, ...held(spec), timeoutMs, maxOutputBytes: this.#maxOutputBytes, signal }));
    });
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const limit = options.max_results ?? DEFAULT_GREP_MAX_RESULTS;
    if (!Number.isInteger(limit) || limit < 1) throw new ExecEnvironmentError('invalid_request', `max_results must be a whole number of at least 1, got ${limit}`);
    if (typeof pattern !== 'string' || pattern.includes('\0') || options.glob_filter?.includes('\0')) {
      throw new ExecEnvironmentError('invalid_request', 'grep needs a pattern (and glob_filter) without NUL bytes');
    }
    // Checked before anything runs, and matched by the walk (ripgrep only reads the files it is handed).
    const filter = options.glob_filter === undefined || options.glob_filter === '' ? undefined : compileGlobFilter(options.glob_filter);
    const search = { command: this.#ripgrep, pattern, caseInsensitive: options.case_insensitive === true, limit, timeoutMs: this.#grepTimeoutMs, signal: options.signal };
    return grepRooted(this.#paths, path, { search, filter, policy: this.#files });
  }

  async glob(pattern: string, path: string, options: Cancellable = {}): Promise<GlobMatch[]> {
    if (typeof pattern !== 'string' || pattern === '') throw new ExecEnvironmentError('invalid_request', 'glob needs a non-empty pattern such as "**/*.ts"');
    const glob = compileGlob(pattern);
    const relative = this.#paths.relative(path);
    const { signal } = options;
    return this.#paths.use(path, {}, async (lookup) => globFiles(await findFiles(requireFolder(lookup, path), relative, skipUsualFolders(pattern), signal), glob, { signal }));
  }

  async workingDirectory(): Promise<string> {
    return this.#paths.root;
  }

  async platform(): Promise<string> {
    return process.platform;
  }

  /**
   * Runs `run` with the folder a command starts in, found by the same walk as every file
   * operation and held open meanwhile: its real path, and a path that enters the held folder
   * itself (see CommandSpec.heldCwd).
   */
  async #inFolder<T>(path: string, run: (cwd: { cwd: string; heldCwd?: string }) => Promise<T>): Promise<T> {
    return this.#paths.use(path, {}, async (lookup) => {
      const folder = requireFolder(lookup, path);
      return run({ cwd: folder.real, ...(folder.handle ? { heldCwd: pathOf(folder) } : {}) });
    });
  }
}

/** An optional true/false option; absent is false. */
function flag(options: ExecOptions, name: 'read_only' | 'network'): boolean {
  const value: unknown = options[name];
  if (value !== undefined && typeof value !== 'boolean') throw new ExecEnvironmentError('invalid_request', `${name} must be true or false, got ${JSON.stringify(value)}`);
  return value === true;
}
