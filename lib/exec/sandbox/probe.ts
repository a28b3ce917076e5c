import { spawn, type StdioOptions } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { bubblewrapArguments, systemMounts, type BubblewrapLayout } from './bubblewrap.ts';
import { detectCgroups } from './cgroups.ts';
import { SANDBOX_PATH } from './command-env.ts';
import { copyAllowedEtc } from './etc-copy.ts';
import { writeGitGuard } from './git-guard.ts';
import { SECCOMP_FILTER_FD, writeSeccompFilter } from './seccomp.ts';
import { checkCommandLimits, DEFAULT_COMMAND_LIMITS, type CommandLimits } from './command-limits.ts';
import { BubblewrapSandbox } from './bubblewrap-sandbox.ts';
import { RefusedCommands, UnsandboxedCommands, type CommandSandbox } from './command-sandbox.ts';
import { CommandsAtOnce, defaultCommandsAtOnce } from './commands-at-once.ts';

/** What the exec-server's operator decides about commands (its CLI flags). */
export interface SandboxSettings {
  /** Run commands without any sandbox (--unsandboxed): an explicit choice, never a fallback. */
  unsandboxed?: boolean;
  /** Commands may use the network when the manifest asks (--allow-network). */
  allowNetwork?: boolean;
  limits?: Partial<CommandLimits>;
  /** Commands run at once, at most (--max-commands); default defaultCommandsAtOnce (local-commands-at-once.ts). */
  maxCommands?: number;
  /** The tenants the exec-server serves (--tenant): its command slots are shared between them (CommandShares). */
  tenants?: string[];
  /** Memory of all commands together (--limit-memory-total); default maxCommands × limits.memory_bytes. */
  memoryAllCommandsBytes?: number;
  /** More host folders commands may read (--read-only-path), such as a toolchain under /opt. */
  readOnlyPaths?: string[];
  /** Where bwrap is looked for; default the server's PATH. */
  searchPath?: string;
  /** Where commands' LANG, LC_*, TERM and TZ come from; default process.env. */
  serverEnv?: () => Readonly<Record<string, string | undefined>>;
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Decides at start-up how commands will run: under bubblewrap when a trial sandbox works here;
 * without a sandbox only when the operator said --unsandboxed; otherwise not at all (the reason
 * and the fix are in every refusal and in /healthz). Throws for settings that make no sense.
 */
export async function probeCommandSandbox(settings: SandboxSettings = {}): Promise<CommandSandbox> {
  const limits = { ...DEFAULT_COMMAND_LIMITS, ...settings.limits };
  const maxCommands = settings.maxCommands ?? defaultCommandsAtOnce(limits.memory_bytes);
  const memoryAllCallsBytes = settings.memoryAllCommandsBytes ?? maxCommands * limits.memory_bytes;
  const problem = checkCommandLimits(limits) ?? checkServerLimits(maxCommands, memoryAllCallsBytes, limits) ?? checkReadOnlyPaths(settings.readOnlyPaths ?? []);
  if (problem) throw new Error(problem);
  const allowNetwork = settings.allowNetwork === true;
  if (settings.unsandboxed) return new CommandsAtOnce(new UnsandboxedCommands({ allowNetwork, reason: 'started with --unsandboxed', serverEnv: settings.serverEnv }), maxCommands, settings.tenants);
  if (process.platform !== 'linux') return new RefusedCommands(`commands are sandboxed with bubblewrap, which needs Linux, and this is ${process.platform}`);
  const bwrap = findProgram('bwrap', settings.searchPath ?? process.env.PATH ?? '');
  if (!bwrap) return new RefusedCommands('bubblewrap (bwrap) is not installed, or not on the exec-server\'s PATH');
  const gitGuard = writeGitGuard();
  const etcCopy = copyAllowedEtc();
  const filter = writeSeccompFilter();
  const layout: BubblewrapLayout = { bwrap, ownUserNamespace: true, systemMounts: systemMounts(etcCopy), readOnlyPaths: settings.readOnlyPaths ?? [], seccompFilter: filter.file, gitGuard };
  // The strongest layout first; without user namespaces (root only) the rest still holds. The
  // seccomp filter is in both: a kernel that refuses it refuses commands (none runs without it).
  const failure = (await trialRun(layout)) && (await trialRun(Object.assign(layout, { ownUserNamespace: false })));
  if (failure) {
    rmSync(etcCopy, { recursive: true, force: true });
    if (filter.file) rmSync(dirname(filter.file), { recursive: true, force: true });
    if (gitGuard) rmSync(dirname(gitGuard.script), { recursive: true, force: true });
    return new RefusedCommands(failure);
  }
  const cgroups = await detectCgroups({ memoryAllCallsBytes });
  const sandbox = new BubblewrapSandbox({ layout, limits, cgroups, memoryAllCallsBytes, allowNetwork, serverEnv: settings.serverEnv, etcCopy, setuidFiles: filter.setuidFiles });
  return new CommandsAtOnce(sandbox, maxCommands, settings.tenants);
}

function checkServerLimits(maxCommands: number, memoryAllCallsBytes: number, limits: CommandLimits): string | undefined {
  if (!Number.isSafeInteger(maxCommands) || maxCommands < 1) return `the number of commands at once (--max-commands) must be a whole number of at least 1, got ${maxCommands}`;
  if (!Number.isSafeInteger(memoryAllCallsBytes) || memoryAllCallsBytes < limits.memory_bytes) {
    return `the memory of all commands together (--limit-memory-total) must be at least one command's (--limit-memory, ${limits.memory_bytes / 1024 / 1024} MiB), got ${memoryAllCallsBytes / 1024 / 1024} MiB`;
  }
  return undefined;
}

function checkReadOnlyPaths(paths: string[]): string | undefined {
  for (const path of paths) {
    if (!isAbsolute(path) || path === '/' || !existsSync(path)) return `--read-only-path ${JSON.stringify(path)} must be an existing absolute path other than /`;
  }
  return undefined;
}

function findProgram(name: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Builds a real sandbox over a scratch folder and writes a file in it; answers why that failed, or undefined. */
async function trialRun(layout: BubblewrapLayout): Promise<string | undefined> {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-sandbox-probe-'));
  try {
    const args = bubblewrapArguments(layout, {
      workspace,
      cwd: workspace,
      readOnly: false,
      network: false,
      tmpBytes: 1024 * 1024,
      env: { PATH: SANDBOX_PATH },
      command: 'echo ok > probe',
    });
    const stderr = await runBwrap(layout, args);
    if (stderr === '' && readFileSync(join(workspace, 'probe'), 'utf8') === 'ok\n') return await trialReadOnlyGit(layout, workspace);
    return `bubblewrap failed to start a sandbox here (${stderr.split('\n')[0] || 'no output'}); if user namespaces are disabled, allow them (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces) or run the exec-server as root`;
  } catch (error) {
    return `bubblewrap failed to start a sandbox here (${(error as Error).message})`;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** A read_only call runs git behind its guard (local-sandbox-git.ts); answers why that failed, or undefined. */
async function trialReadOnlyGit(layout: BubblewrapLayout, workspace: string): Promise<string | undefined> {
  if (!layout.gitGuard) return undefined;
  const call = { workspace, cwd: workspace, readOnly: true, network: false, tmpBytes: 1024 * 1024, env: { PATH: SANDBOX_PATH }, command: 'git version >/dev/null' };
  const stderr = await runBwrap(layout, bubblewrapArguments(layout, call));
  return stderr === '' ? undefined : `git's guard for read-only calls failed to run in a trial sandbox (${stderr.split('\n')[0]})`;
}

/** Runs bwrap with the filter open on SECCOMP_FILTER_FD, as the launcher does; answers its stderr when it failed, or ''. */
async function runBwrap(layout: BubblewrapLayout, args: string[]): Promise<string> {
  const filter = layout.seccompFilter ? openSync(layout.seccompFilter, 'r') : undefined;
  try {
    const stdio: StdioOptions = ['ignore', 'ignore', 'pipe'];
    // The entries between stderr and it, if any, are left empty: Node gives those no descriptor.
    if (filter !== undefined) stdio[SECCOMP_FILTER_FD] = filter;
    const child = spawn(layout.bwrap, args, { env: {}, stdio, timeout: PROBE_TIMEOUT_MS });
    let errors = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    return await new Promise<string>((resolve) => {
      child.once('error', (error) => resolve(error.message));
      child.once('close', (code, signal) => resolve(code === 0 ? '' : errors.trim() || `bwrap ended with ${signal ?? `exit code ${code}`}`));
    });
  } finally {
    if (filter !== undefined) closeSync(filter);
  }
}
