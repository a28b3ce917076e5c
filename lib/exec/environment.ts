/**
 * The ExecutionEnvironment port: the files and processes the built-in coding tools touch.
 * The gateway only ever holds a RemoteExecutionEnvironment (fetch RPC); the local, Node-only
 * implementation lives behind the exec-server. Paths are relative to the environment's root
 * (absolute paths are accepted only when they resolve inside it).
 */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileStat {
  type: EntryType;
  size: number;
  /** Last modification, milliseconds since the epoch. */
  mtime_ms: number;
}

export interface DirectoryEntry {
  /** Relative to the environment root, `/`-separated. */
  path: string;
  type: EntryType;
  size: number;
}

/**
 * What stops a call's work early. The gateway aborts it when it stops waiting for the call (its
 * timeout, or the dispatch's own signal): the RPC client then drops the request, and the
 * exec-server, seeing its client gone, aborts the signal it hands the local environment, which
 * kills the command's process group or the search. Never sent as a parameter.
 */
export interface Cancellable {
  signal?: AbortSignal;
}

export interface ExecOptions extends Cancellable {
  timeout_ms?: number;
  cwd?: string;
  env?: Record<string, string>;
  /** Run with the workspace mounted read-only and without network (a grant constrained to read-only). */
  read_only?: boolean;
  /** May use the network: only where the exec-server's operator allows it (--allow-network), else refused. */
  network?: boolean;
  /**
   * Who the command runs for: set by the exec-server from the signed request, never sent as a
   * parameter. An exec-server shares its command slots between its tenants (see CommandShares).
   */
  tenant?: string;
}

export interface ExecResult {
  /** null when the process was killed by a signal (for example on timeout). */
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  duration_ms: number;
  /** True when stdout or stderr went over the in-memory cap and were cut. */
  output_capped: boolean;
}

export interface GrepOptions extends Cancellable {
  glob_filter?: string;
  case_insensitive?: boolean;
  max_results?: number;
}

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GlobMatch {
  path: string;
  mtime_ms: number;
}

export interface ExecutionEnvironment {
  readFile(path: string): Promise<Uint8Array>;
  /** Creates missing parent folders. */
  writeFile(path: string, content: Uint8Array): Promise<void>;
  deleteFile(path: string): Promise<void>;
  /** Creates missing parent folders of `to`; overwrites an existing file at `to`. */
  moveFile(from: string, to: string): Promise<void>;
  fileExists(path: string): Promise<boolean>;
  /** null when nothing exists at the path. */
  stat(path: string): Promise<FileStat | null>;
  /** At most MAX_LISTED_ENTRIES entries (lib/exec/limits.ts); each folder followed by its entries (depth first); a cut listing has every entry of the levels above the cut. */
  listDirectory(path: string, depth: number): Promise<DirectoryEntry[]>;
  execCommand(command: string, options?: ExecOptions): Promise<ExecResult>;
  grep(pattern: string, path: string, options?: GrepOptions): Promise<GrepMatch[]>;
  /** Matching files, newest first. */
  glob(pattern: string, path: string, options?: Cancellable): Promise<GlobMatch[]>;
  workingDirectory(): Promise<string>;
  platform(): Promise<string>;
}

/** Why an environment operation failed; travels over RPC unchanged. */
export type ExecErrorCode =
  | 'not_found'
  | 'is_directory'
  | 'not_directory'
  | 'invalid_path'
  | 'outside_root'
  | 'invalid_request'
  | 'io_error'
  | 'unavailable';

export class ExecEnvironmentError extends Error {
  readonly code: ExecErrorCode;

  constructor(code: ExecErrorCode, message: string) {
    super(message);
    this.name = 'ExecEnvironmentError';
    this.code = code;
  }
}
