import { spawn } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { ExecEnvironmentError, type GrepMatch } from './environment.ts';
import { MAX_GREP_FILE_BYTES, MAX_GREP_LINE_CHARS } from './limits.ts';
import type { Place } from './local-places.ts';
import { SKIPPED_FOLDERS } from './local-search.ts';

/**
 * grep runs ripgrep (`rg`), never JavaScript's RegExp: rg's regex engine takes time linear in
 * the input whatever the pattern, and it runs in its own process, so neither a catastrophic
 * pattern nor a huge tree can stall the exec-server's event loop; a search still running at its
 * timeout is killed with SIGKILL.
 */
export interface RipgrepSearch {
  /** The rg executable (looked up on PATH when not absolute). */
  command: string;
  /** The folder rg starts in. */
  cwd: string;
  /** What rg searches: '.', or one file. */
  target: string;
  /**
   * A file or folder handed to rg as its descriptor 3 (on Linux, the one the walk checked and
   * holds), so that `cwd` or `target` can be `/proc/self/fd/3`: rg then opens exactly what was
   * checked, not whatever the path leads to a moment later.
   */
  heldDescriptor?: number;
  /** Runs rg through another program (the jail's bwrap): the command line to spawn instead. */
  wrap?: (args: string[]) => { command: string; args: string[] };
  /** Turns a path rg printed (without a leading './') into the path a match reports. */
  reportPath: (printed: string) => string;
  pattern: string;
  caseInsensitive: boolean;
  /** Only for folder searches (rg ignores globs for a file it is given). */
  globFilter?: string;
  limit: number;
  timeoutMs: number;
  /** Aborted when nobody waits for the answer any more: rg is killed at once. */
  signal?: AbortSignal;
}

/** A folder search starts in the held folder itself (rg's descriptor 3) where places are held. */
export function startIn(folder: Place): Pick<RipgrepSearch, 'cwd' | 'heldDescriptor'> {
  return folder.handle ? { cwd: '/proc/self/fd/3', heldDescriptor: folder.handle.fd } : { cwd: folder.real };
}

/** A one-file search reads the held file itself (rg's descriptor 3) where places are held. */
export function searchFile(file: Place): Pick<RipgrepSearch, 'cwd' | 'target' | 'heldDescriptor'> {
  return file.handle ? { cwd: '/', target: '/proc/self/fd/3', heldDescriptor: file.handle.fd } : { cwd: dirname(file.real), target: `./${basename(file.real)}` };
}

/** rg cuts longer lines to a preview; in bytes, so always more than MAX_GREP_LINE_CHARS characters. */
const MAX_LINE_BYTES = 4 * MAX_GREP_LINE_CHARS;
/** An output record longer than this (it cannot be, given MAX_LINE_BYTES and path limits) is dropped. */
const MAX_RECORD_BYTES = 64 * 1024;
const MAX_STDERR_CHARS = 4_000;

export function runRipgrep(search: RipgrepSearch): Promise<GrepMatch[]> {
  return new Promise((resolve, reject) => {
    const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
    if (search.heldDescriptor !== undefined) stdio.push(search.heldDescriptor);
    // rg reads no variable but RIPGREP_CONFIG_PATH (ignored anyway: --no-config); PATH finds it.
    const rgArguments = ripgrepArguments(search);
    const { command, args } = search.wrap ? search.wrap(rgArguments) : { command: search.command, args: rgArguments };
    const child = spawn(command, args, { cwd: search.cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio });
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
      const match = parseRecord(record, search.reportPath);
      if (match === undefined || settled) return;
      matches.push(match);
      if (matches.length < search.limit) return;
      child.kill('SIGKILL');
      settle(() => resolve(matches));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, search.timeoutMs);
    const cancel = () => {
      child.kill('SIGKILL');
      settle(() => reject(new ExecEnvironmentError('unavailable', 'the search was stopped: nobody waits for its answer any more')));
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
        if (timedOut) return reject(tookTooLong(search.timeoutMs));
        if (stderr.startsWith('bwrap:')) return reject(new ExecEnvironmentError('io_error', `grep could not start its sandbox (${stderr.trim()}): check bubblewrap on the exec-server`));
        if (code === 0 || code === 1) return resolve(matches);
        // 2 is an error: fatal ones (a bad pattern or glob) say why on stderr; per-file ones
        // (an unreadable file) are silenced by --no-messages and only skip that file.
        if (code === 2 && stderr.trim() === '') return resolve(matches);
        if (code === 2) return reject(refused(search, stderr));
        reject(new ExecEnvironmentError('io_error', `grep stopped unexpectedly (ripgrep ${signal ?? `exit code ${code}`}): try again`));
      }),
    );
  });
}

function ripgrepArguments(search: RipgrepSearch): string[] {
  const args = [
    '--no-config', // no RIPGREP_CONFIG_PATH: nothing adds --pre, --search-zip or -L behind our back
    '--no-ignore', // .gitignore and friends do not hide files ...
    '--hidden', // ... and neither does a leading dot
    '--no-follow', // symlinks are never followed, so a search cannot leave the root
    '--sort=path', // results in a stable order (also makes rg single-threaded)
    '--crlf', // `$` matches before \r\n too
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--null', // path\0line:text\n: a path cannot contain NUL, so it parses unambiguously
    '--color=never',
    '--no-messages',
    `--max-columns=${MAX_LINE_BYTES}`,
    '--max-columns-preview',
    `--max-filesize=${MAX_GREP_FILE_BYTES}`,
  ];
  if (search.globFilter !== undefined && search.globFilter !== '') args.push(`--glob=${search.globFilter}`);
  // Later globs win: the usual skips stay skipped whatever glob_filter says.
  for (const folder of SKIPPED_FOLDERS) args.push(`--glob=!${folder}/`);
  if (search.caseInsensitive) args.push('--ignore-case');
  args.push(`--regexp=${search.pattern}`, '--', search.target);
  return args;
}

/** One `path\0line:text` record (its \n removed); undefined for anything else rg prints, such as a binary-file note. */
function parseRecord(record: Buffer, reportPath: (printed: string) => string): GrepMatch | undefined {
  const nul = record.indexOf(0);
  if (nul < 0) return undefined;
  const colon = record.indexOf(0x3a, nul + 1);
  if (colon < 0) return undefined;
  const line = Number(record.subarray(nul + 1, colon).toString('latin1'));
  if (!Number.isSafeInteger(line) || line < 1) return undefined;
  const printed = new TextDecoder().decode(record.subarray(0, nul)).replace(/^\.\//, '');
  const text = new TextDecoder().decode(record.subarray(colon + 1)).replace(/\r$/, '');
  return { path: reportPath(printed), line, text: text.length > MAX_GREP_LINE_CHARS ? `${text.slice(0, MAX_GREP_LINE_CHARS)}…` : text };
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

/** rg refused the search before running it: the pattern or glob_filter is not valid for it. */
function refused(search: RipgrepSearch, stderr: string): ExecEnvironmentError {
  const lines = stderr.trim().split('\n');
  const reason = (lines.find((line) => line.startsWith('error:')) ?? lines[lines.length - 1]).replace(/^error:\s*/, '').trim();
  if (/glob/i.test(stderr) && search.globFilter !== undefined) {
    return new ExecEnvironmentError('invalid_request', `glob_filter ${JSON.stringify(search.globFilter)} is not a valid glob (ripgrep: ${reason}): use a glob such as "*.ts" or "src/**/*.ts"`);
  }
  return new ExecEnvironmentError(
    'invalid_request',
    `grep pattern ${JSON.stringify(search.pattern)} is not a valid regular expression for ripgrep (${reason}): fix or escape it (ripgrep's syntax is Rust's regex: no look-around, no backreferences)`,
  );
}

function tookTooLong(timeoutMs: number): ExecEnvironmentError {
  return new ExecEnvironmentError('io_error', `the search took longer than ${timeoutMs} ms and was stopped: search a smaller folder (path), narrow it with glob_filter, or use a simpler pattern`);
}

function startFailure(error: NodeJS.ErrnoException, command: string): ExecEnvironmentError {
  if (error.code === 'ENOENT') {
    return new ExecEnvironmentError('unavailable', `grep needs ripgrep, and ${JSON.stringify(command)} was not found on the exec-server: install it (Debian/Ubuntu: apt-get install ripgrep) or put rg on PATH`);
  }
  return new ExecEnvironmentError('io_error', `could not start ripgrep (${command}): ${error.message}`);
}
