import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { UnsandboxedCommands, type CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { ExecEnvironmentError } from '../../lib/exec/environment.ts';
import { probeCommandSandbox, type SandboxSettings } from '../../lib/exec/sandbox/probe.ts';
import { ToolError } from '../../lib/registry/errors.ts';

/** A scratch folder holding `root/` (the environment) and `outside/` (must never be touched). */
export interface Sandbox {
  base: string;
  root: string;
  outside: string;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await mkdtemp(join(tmpdir(), 'toolgate-exec-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  return { base, root, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export async function execError(promise: Promise<unknown>): Promise<ExecEnvironmentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ExecEnvironmentError) return error;
    throw error;
  }
  throw new Error('expected an ExecEnvironmentError');
}

/** The ToolError a promise rejects with, such as a remote environment's `unavailable`. */
export async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

export function bytes(...values: number[]): Uint8Array {
  return new Uint8Array(values);
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * Whether a process still runs. A zombie counts as gone: it has exited and only waits to be
 * reaped, which in some containers (PID 1 that never reaps) never happens.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  const statFile = `/proc/${pid}/stat`;
  if (!existsSync(statFile)) return true;
  const state = readFileSync(statFile, 'utf8').replace(/^.*\) /s, '').charAt(0);
  return state !== 'Z' && state !== 'X';
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/**
 * The sandbox the exec-server would use here (bubblewrap), probed once per test file. Fails
 * loudly when bubblewrap does not work, rather than letting sandbox tests pass on refusals.
 */
export async function bubblewrapSandbox(settings: SandboxSettings = {}): Promise<CommandSandbox> {
  const sandbox = await probeCommandSandbox(settings);
  const report = sandbox.report();
  if (report.sandbox !== 'bubblewrap') throw new Error(`bubblewrap does not work on this machine: ${report.reason}`);
  return sandbox;
}

/** Commands as ordinary processes (the exec-server's --unsandboxed), for what does not depend on the sandbox. */
export function unsandboxed(allowNetwork = false): CommandSandbox {
  return new UnsandboxedCommands({ allowNetwork, reason: 'a test runs commands without a sandbox' });
}

/** A TCP listener on the host's 127.0.0.1 that counts connections: whether a command reached the network. */
export interface CountingListener {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function countingListener(): Promise<CountingListener> {
  let connections = 0;
  const listener = createServer((socket) => {
    connections++;
    socket.resume();
    socket.end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}

/**
 * Text that keeps ripgrep's regex engine busy for seconds per file with SLOW_SEARCH_PATTERN (its
 * lazy DFA keeps meeting new states): lines of 90 random letters, digits and spaces, 9 MB a file
 * (grep skips files over 10 MB). Each file differs, so no state is reused from the one before.
 */
export function slowSearchText(seed: number): Buffer {
  const alphabet = Buffer.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      ');
  const text = Buffer.alloc(9_000_000);
  let state = seed * 2_654_435_761 + 1;
  for (let i = 0; i < text.length; i++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text[i] = i % 91 === 90 ? 0x0a : alphabet[(state >>> 16) % alphabet.length];
  }
  return text;
}

/** Keeps ripgrep busy for seconds on each slowSearchText file (and matches nothing there). */
export const SLOW_SEARCH_PATTERN = '(\\w+\\s?){200}$';

/** Live processes (not this one) whose command line mentions `marker`. */
export function processesMentioning(marker: string): number[] {
  return readdirSync('/proc').flatMap((name) => {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid === process.pid) return [];
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker) && isRunning(pid) ? [pid] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}
