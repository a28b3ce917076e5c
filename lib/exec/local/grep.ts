import { spawn } from 'node:child_process';
import { ExecEnvironmentError, type GrepMatch } from '../environment.ts';
import { MAX_GREP_LINE_CHARS } from '../limits.ts';
import type { SearchableFile } from './grep-walk.ts';

/**
 * grep runs ripgrep (`rg`), never JavaScript's RegExp: rg's regex engine takes time linear in
 * the input whatever the pattern, and it runs in its own process, so neither a catastrophic
 * pattern nor a huge tree can stall the exec-server's event loop; a search still running at its
 * timeout is killed with SIGKILL.
 *
 * rg never walks or resolves a path of the workspace: it is handed the files the walk checked
 * (local-grep-walk.ts), on Linux as the very descriptors the walk opened (its /proc/self/fd/N),
 * so no file swapped in meanwhile (a FIFO, a symlink, a hard link) is what it reads.
 */
export interface RipgrepSearch {
  /** The rg executable (looked up on PATH when not absolute). */
  command: string;
  /** What rg reads, in this order; their matches come back in the same order. */
  files: readonly SearchableFile[];
  pattern: string;
  caseInsensitive: boolean;
  limit: number;
  /** When rg is killed (Date.now() milliseconds). */
  deadline: number;
  /** The whole search's time limit, for the message when it is reached. */
  timeoutMs: number;
  /** Aborted when nobody waits for the answer any more: rg is killed at once. */
  signal?: AbortSignal;
}

/** The first descriptor rg gets a file on (0 to 2 are its standard streams). */
const FIRST_FILE_FD = 3;

/** rg cuts longer lines to a preview; in bytes, so always more than MAX_GREP_LINE_CHARS characters. */
const MAX_LINE_BYTES = 4 * MAX_GREP_LINE_CHARS;
/** An output record longer than this (it cannot be, given MAX_LINE_BYTES and path limits) is dropped. */
const MAX_RECORD_BYTES = 64 * 1024;
const MAX_STDERR_CHARS = 4_000;

export function runRipgrep(search: RipgrepSearch): Promise<GrepMatch[]> {
  return new Promise((resolve, reject) => {
    const { stdio, targets, pathOf } = handOver(search.files);
    // rg reads no variable but RIPGREP_CONFIG_PATH (ignored anyway: --no-config); PATH finds it.
    const child = spawn(search.command, ripgrepArguments(search, targets), { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio });
    const matches: GrepMatch[] = [];
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const records = new RecordReader((record) => {
      const match = parseRecord(record, pathOf);
      if (match === undefined || settled) return;
      matches.push(match);
      if (matches.length < search.limit) return;
      child.kill('SIGKILL');
      settle(() => resolve(matches));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, Math.max(0, search.deadline - Date.now()));
    const cancel = () => {
      child.kill('SIGKILL');
      settle(() => reject(searchStopped()));
    };
    if (search.signal?.aborted) cancel();
    search.signal?.addEventListener('abort', cancel, { once: true });
    child.once('close', () => search.signal?.removeEventListener('abort', cancel));
    child.stdout?.on('data', (chunk: Buffer) => records.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.toString('utf8');
    });
    child.once('error', (error: NodeJS.ErrnoException) => settle(() => reject(startFailure(error, search.command))));
    child.once('close', (code, signal) =>
      settle(() => {
        if (timedOut) return reject(searchTookTooLong(search.timeoutMs));
        if (code === 0 || code === 1) return resolve(matches);
        // 2 is an error: fatal ones (a bad pattern) say why on stderr; per-file ones
        // (an unreadable file) are silenced by --no-messages and only skip that file.
        if (code === 2 && stderr.trim() === '') return resolve(matches);
        if (code === 2) return reject(refused(search, stderr));
        reject(new ExecEnvironmentError('io_error', `grep stopped unexpectedly (ripgrep ${signal ?? `exit code ${code}`}): try again`));
      }),
    );
  });
}

/**
 * How rg gets the files: on Linux each held descriptor is handed over as one of rg's own
 * (FIRST_FILE_FD onwards) and named /proc/self/fd/N; elsewhere by real path. Also what turns a
 * path rg prints back into the file's path under the root.
 */
function handOver(files: readonly SearchableFile[]): { stdio: ('ignore' | 'pipe' | number)[]; targets: string[]; pathOf: (printed: string) => string | undefined } {
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  const byTarget = new Map<string, string>();
  for (const [index, file] of files.entries()) {
    const target = file.entry.fd === undefined ? file.entry.real : `/proc/self/fd/${FIRST_FILE_FD + index}`;
    if (file.entry.fd !== undefined) stdio.push(file.entry.fd);
    byTarget.set(target, file.path);
  }
  return { stdio, targets: [...byTarget.keys()], pathOf: (printed) => byTarget.get(printed) };
}

function ripgrepArguments(search: RipgrepSearch, targets: string[]): string[] {
  const args = [
    '--no-config', // no RIPGREP_CONFIG_PATH: nothing adds --pre, --search-zip or -L behind our back
    '--threads=1', // the files one after another, in the order given (the walk's path order)
    '--crlf', // `$` matches before \r\n too
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--null', // path\0line:text\n: a path cannot contain NUL, so it parses unambiguously
    '--color=never',
    '--no-messages',
    `--max-columns=${MAX_LINE_BYTES}`,
    '--max-columns-preview',
  ];
  if (search.caseInsensitive) args.push('--ignore-case');
  args.push(`--regexp=${search.pattern}`, '--', ...targets);
  return args;
}

/** One `path\0line:text` record (its \n removed); undefined for anything else rg prints, such as a binary-file note. */
function parseRecord(record: Buffer, pathOf: (printed: string) => string | undefined): GrepMatch | undefined {
  const nul = record.indexOf(0);
  if (nul < 0) return undefined;
  const colon = record.indexOf(0x3a, nul + 1);
  if (colon < 0) return undefined;
  const line = Number(record.subarray(nul + 1, colon).toString('latin1'));
  if (!Number.isSafeInteger(line) || line < 1) return undefined;
  const path = pathOf(new TextDecoder().decode(record.subarray(0, nul)));
  if (path === undefined) return undefined;
  const text = new TextDecoder().decode(record.subarray(colon + 1)).replace(/\r$/, '');
  return { path, line, text: text.length > MAX_GREP_LINE_CHARS ? `${text.slice(0, MAX_GREP_LINE_CHARS)}…` : text };
}

/** Splits a byte stream into \n-terminated records, dropping any record over MAX_RECORD_BYTES. */
class RecordReader {
  readonly #onRecord: (record: Buffer) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #dropping = false;

  constructor(onRecord: (record: Buffer) => void) {
    this.#onRecord = onRecord;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      this.#take(chunk.subarray(start, end));
      if (!this.#dropping) this.#onRecord(Buffer.concat(this.#pending));
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#dropping = false;
      start = end + 1;
    }
    this.#take(chunk.subarray(start));
  }

  #take(part: Buffer): void {
    if (this.#dropping || part.length === 0) return;
    this.#pendingBytes += part.length;
    if (this.#pendingBytes > MAX_RECORD_BYTES) {
      this.#dropping = true;
      this.#pending = [];
    } else {
      this.#pending.push(part);
    }
  }
}

/** rg refused the search before running it: the pattern is not valid for it (glob_filter is matched by the walk). */
function refused(search: RipgrepSearch, stderr: string): ExecEnvironmentError {
  const lines = stderr.trim().split('\n');
  const reason = (lines.find((line) => line.startsWith('error:')) ?? lines[lines.length - 1]).replace(/^error:\s*/, '').trim();
  return new ExecEnvironmentError(
    'invalid_request',
    `grep pattern ${JSON.stringify(search.pattern)} is not a valid regular expression for ripgrep (${reason}): fix or escape it (ripgrep's syntax is Rust's regex: no look-around, no backreferences)`,
  );
}

export function searchTookTooLong(timeoutMs: number): ExecEnvironmentError {
  return new ExecEnvironmentError('io_error', `the search took longer than ${timeoutMs} ms and was stopped: search a smaller folder (path), narrow it with glob_filter, or use a simpler pattern`);
}

/** The gateway stopped waiting for the answer (it gave up or the call was cancelled): nothing reads it. */
export function searchStopped(): ExecEnvironmentError {
  return new ExecEnvironmentError('unavailable', 'the search was stopped: nobody waits for its answer any more');
}

function startFailure(error: NodeJS.ErrnoException, command: string): ExecEnvironmentError {
  if (error.code === 'ENOENT') {
    return new ExecEnvironmentError('unavailable', `grep needs ripgrep, and ${JSON.stringify(command)} was not found on the exec-server: install it (Debian/Ubuntu: apt-get install ripgrep) or put rg on PATH`);
  }
  return new ExecEnvironmentError('io_error', `could not start ripgrep (${command}): ${error.message}`);
}
