import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ExecEnvironmentError, type ExecResult } from '../environment.ts';
import type { ProcessSpec } from '../sandbox/command-sandbox.ts';
import { withoutInheritedFds } from './inherited-fds.ts';
import { KILL_GRACE_MS } from '../limits.ts';

export interface CommandSpec extends ProcessSpec {
  /**
   * On Linux, `/proc/self/fd/N` of `cwd` held open by the caller: the child's chdir enters the
   * very folder that was checked, even if its path was swapped for a symlink since. Valid only
   * for a chdir in a child forked from this process (not inside another mount namespace).
   */
  heldCwd?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Aborted when nobody waits for the answer any more: the group is stopped as at a timeout. */
  signal?: AbortSignal;
}

/**
 * After the shell exits, how long to wait for its output pipes to close. A background job that
 * keeps stdout open (`server &`) would otherwise hold the answer until it ends; after this we
 * stop reading and answer with what we have.
 */
const PIPE_DRAIN_MS = 250;

/**
 * Runs a command's process (the sandbox launcher, or `/bin/bash -c command` unsandboxed) in its
 * own process group. On timeout the whole group gets SIGTERM, then SIGKILL after KILL_GRACE_MS,
 * so background grandchildren die with the shell (in the sandbox, bwrap's death takes its pid
 * namespace down with it). The process gets stdin (empty), stdout and stderr, and no other
 * descriptor of the server (see inherited-fds.ts).
 */
export function runCommand(spec: CommandSpec): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    if (spec.signal?.aborted) return reject(cancelledBeforeStart());
    const started = performance.now();
    const closer = withoutInheritedFds(spec);
    const child = spawn(closer.file, closer.args, {
      cwd: spec.heldCwd ?? spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new CappedOutput(spec.maxOutputBytes);
    const stderr = new CappedOutput(spec.maxOutputBytes);
    child.stdout.on('data', (chunk: Uint8Array) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Uint8Array) => stderr.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) terminateGroup(child.pid);
    }, spec.timeoutMs);
    const cancel = () => {
      if (child.pid !== undefined) terminateGroup(child.pid);
    };
    spec.signal?.addEventListener('abort', cancel, { once: true });
    const stopWatching = () => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', cancel);
    };
    child.once('error', (error) => {
      stopWatching();
      reject(new ExecEnvironmentError('io_error', `could not start ${spec.file}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      stopWatching();
      void drain([child.stdout, child.stderr]).then(() =>
        resolve({
          exit_code: code,
          signal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          timed_out: timedOut,
          duration_ms: Math.round(performance.now() - started),
          output_capped: stdout.capped || stderr.capped,
        }),
      );
    });
  });
}

function cancelledBeforeStart(): ExecEnvironmentError {
  return new ExecEnvironmentError('unavailable', 'the command was cancelled before it started (nobody waits for it any more): nothing was run');
}

/** SIGTERM to the group now, SIGKILL to whatever is left of it after the grace period. */
function terminateGroup(pid: number): void {
  signalGroup(pid, 'SIGTERM');
  // Not unref'd: the SIGKILL must happen even if nothing else keeps the server busy.
  setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Waits for the pipes to close, at most PIPE_DRAIN_MS, then stops reading them. */
function drain(streams: Readable[]): Promise<void> {
  const closed = streams.map((stream) => (stream.closed ? Promise.resolve() : new Promise<void>((done) => stream.once('close', () => done()))));
  return new Promise<void>((done) => {
    const timer = setTimeout(() => {
      for (const stream of streams) stream.destroy();
      done();
    }, PIPE_DRAIN_MS);
    void Promise.all(closed).then(() => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Keeps the head of a stream up to a byte limit and notes whether anything was dropped. */
class CappedOutput {
  readonly #limit: number;
  readonly #chunks: Uint8Array[] = [];
  #size = 0;
  capped = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Uint8Array): void {
    const room = this.#limit - this.#size;
    if (chunk.length > room) this.capped = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#size += kept.length;
  }

  /** UTF-8 text; when capped, a character cut in half at the end is dropped rather than mangled. */
  text(): string {
    const joined = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    return new TextDecoder().decode(joined, { stream: this.capped });
  }
}
