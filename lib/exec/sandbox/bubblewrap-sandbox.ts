import { realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { bubblewrapArguments, type BubblewrapLayout, type SandboxedCall } from './bubblewrap.ts';
import type { CallOutcome, CgroupSupport } from './cgroups.ts';
import { commandEnvironment } from './command-env.ts';
import type { CommandLimits } from './command-limits.ts';
import { networkRefused, type CommandRequest, type CommandSandbox, type ProcessSpec, type SandboxReport, type ServerEnv, type StartProcess } from './command-sandbox.ts';
import { ExecEnvironmentError, type ExecResult } from '../environment.ts';
import { isInside } from '../local/paths.ts';
import { SECCOMP_FILTER_FD } from './seccomp.ts';

const CPU_HARD_LIMIT_EXTRA_SECONDS = 2;

export interface BubblewrapSandboxOptions {
  layout: BubblewrapLayout;
  limits: CommandLimits;
  cgroups: CgroupSupport;
  /** The memory of all calls together (see local-cgroups.ts), for /healthz; enforced where cgroups.enforcedAllCalls says. */
  memoryAllCallsBytes?: number;
  /** The operator started the server with --allow-network. */
  allowNetwork: boolean;
  /** Where LANG, LC_*, TERM and TZ come from; default process.env. */
  serverEnv?: ServerEnv;
  /** The folder mounted as /etc (local-sandbox-etc.ts), removed on close. */
  etcCopy?: string;
  /** For /healthz: whether commands can make setuid or setgid files (local-sandbox-seccomp.ts). */
  setuidFiles: string;
}

/** Every command under bubblewrap (see local-bubblewrap.ts), in a cgroup of its own, with rlimits. */
export class BubblewrapSandbox implements CommandSandbox {
  readonly #options: BubblewrapSandboxOptions;
  readonly #serverEnv: ServerEnv;

  /** The real paths of the sandbox's own files on the host (the /etc copy, the seccomp filter's and the git guard's folders). */
  readonly #ownFolders: string[];

  constructor(options: BubblewrapSandboxOptions) {
    this.#options = options;
    this.#serverEnv = options.serverEnv ?? (() => process.env);
    const { seccompFilter, gitGuard } = options.layout;
    this.#ownFolders = [options.etcCopy, seccompFilter && dirname(seccompFilter), gitGuard && dirname(gitGuard.script)]
      .filter((folder) => folder !== undefined)
      .map((folder) => realpathSync(folder));
  }

  report(): SandboxReport {
    const { limits, cgroups, allowNetwork } = this.#options;
    const memory = cgroups.enforced.memory ? `${cgroups.enforced.memory} (the whole call)` : 'rlimit DATA (each process)';
    return {
      sandbox: 'bubblewrap',
      commands: 'sandboxed',
      ...(cgroups.notEnforcedReason ? { reason: cgroups.notEnforcedReason } : {}),
      network: allowNetwork ? 'when the manifest asks' : 'never',
      setuid_files: this.#options.setuidFiles,
      limits: {
        cpu_seconds: { value: limits.cpu_seconds, enforced_by: 'rlimit CPU (each process)' },
        memory_bytes: { value: limits.memory_bytes, enforced_by: memory },
        processes: { value: limits.processes, enforced_by: cgroups.enforced.pids ? `${cgroups.enforced.pids} (the whole call)` : 'none' },
        file_size_bytes: { value: limits.file_size_bytes, enforced_by: 'rlimit FSIZE (each file)' },
        tmp_bytes: { value: limits.tmp_bytes, enforced_by: 'tmpfs size (/tmp and /dev/shm each)' },
        ...this.#allCallsReport(),
      },
    };
  }

  #allCallsReport(): SandboxReport['limits'] {
    const { memoryAllCallsBytes, cgroups } = this.#options;
    if (memoryAllCallsBytes === undefined) return {};
    const enforcedBy = cgroups.enforcedAllCalls ? `${cgroups.enforcedAllCalls} (all commands together)` : 'none (no usable memory cgroup)';
    return { memory_bytes_all_commands: { value: memoryAllCallsBytes, enforced_by: enforcedBy } };
  }

  async run(request: CommandRequest, start: StartProcess): Promise<ExecResult> {
    if (request.workspace === '/' || /^\/(proc|sys|dev)(\/|$)/.test(request.workspace)) {
      throw new ExecEnvironmentError('invalid_request', `the workspace ${request.workspace} would expose the host itself to commands: serve a folder of its own`);
    }
    // A command could rewrite them for the calls after it (an allow-all filter, another passwd).
    if (this.#ownFolders.some((folder) => isInside(request.workspace, folder))) {
      throw new ExecEnvironmentError(
        'unavailable',
        'the exec-server keeps the sandbox\'s own files (its /etc copy and seccomp filter) in its temporary folder, which lies inside this workspace, where commands could change them: nothing was run. Its operator must set TMPDIR to a folder outside --root and restart it',
      );
    }
    const network = this.#networkFor(request);
    const env = commandEnvironment(this.#serverEnv(), request.env, { sandboxed: true });
    const { limits, cgroups } = this.#options;
    const cgroup = await cgroups.create(limits).catch((error: unknown) => {
      throw new ExecEnvironmentError('io_error', `could not create the command's cgroup: ${(error as Error).message}`);
    });
    let result: ExecResult;
    try {
      result = await start(this.#launch({ ...request, network, env, tmpBytes: limits.tmp_bytes }, cgroup.procsFiles));
    } catch (error) {
      await cgroup.finish();
      throw error;
    }
    const allCalls = cgroups.enforcedAllCalls ? this.#options.memoryAllCallsBytes : undefined;
    return explainLimits(result, limits, await cgroup.finish(), allCalls);
  }

  /** The launcher (see launcherScript) with the call's cgroups and rlimits, then bwrap and the command. */
  #launch(call: SandboxedCall, procsFiles: string[]): ProcessSpec {
    const { layout, limits, cgroups } = this.#options;
    // The CPU hard limit a little above the soft one: at the soft limit the kernel sends SIGXCPU
    // (which says why); at the hard one SIGKILL, for a process that ignores SIGXCPU.
    const rlimits = ['ulimit -c 0', `ulimit -S -t ${limits.cpu_seconds}`, `ulimit -H -t ${limits.cpu_seconds + CPU_HARD_LIMIT_EXTRA_SECONDS}`, `ulimit -f ${Math.ceil(limits.file_size_bytes / 1024)}`];
    // Without a memory cgroup, each process at least is bounded by what it really uses (not RLIMIT_AS: see command-limits.ts).
    if (!cgroups.enforced.memory) rlimits.push(`ulimit -d ${Math.ceil(limits.memory_bytes / 1024)}`);
    return {
      file: '/bin/bash',
      args: ['-c', launcherScript(rlimits, layout.seccompFilter), 'toolgate-sandbox', String(procsFiles.length), ...procsFiles, layout.bwrap, ...bubblewrapArguments(layout, call)],
      env: {},
      cwd: call.cwd,
    };
  }

  async close(): Promise<void> {
    await this.#options.cgroups.close();
    if (this.#options.etcCopy) await rm(this.#options.etcCopy, { recursive: true, force: true });
    // The filter sits alone in a private folder of its own (local-sandbox-seccomp.ts).
    const { seccompFilter, gitGuard } = this.#options.layout;
    if (seccompFilter) await rm(dirname(seccompFilter), { recursive: true, force: true });
    if (gitGuard) await rm(dirname(gitGuard.script), { recursive: true, force: true });
  }

  /** read_only means no network, whatever else was asked; network only where the operator allows it. */
  #networkFor(request: CommandRequest): boolean {
    if (request.readOnly || !request.network) return false;
    if (!this.#options.allowNetwork) throw networkRefused();
    return true;
  }
}

/**
 * Runs on the host, before anything of the command: joins the call's cgroups and sets the rlimits
 * (hard and soft: the sandbox has no capability to raise them again), opens the seccomp filter
 * for bwrap, then becomes bwrap. Arguments: the number of cgroup.procs files, the files, then bwrap
 * and its arguments. Exit 125 if any step fails.
 */
function launcherScript(rlimits: string[], seccompFilter: string | undefined): string {
  return [
    'n=$1; shift',
    'while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done',
    `${rlimits.join(' && ')} || exit 125`,
    ...(seccompFilter ? [openSeccompFilter(seccompFilter)] : []),
    'exec "$@"',
  ].join('\n');
}

/**
 * The launcher line that opens the filter on the descriptor bwrap's `--seccomp` names. A filter
 * that cannot be opened stops the call (exit 125): a command never runs without it.
 */
function openSeccompFilter(file: string): string {
  return `exec ${SECCOMP_FILTER_FD}<'${file.replaceAll("'", "'\\''")}' || exit 125`;
}

/** A note at the end of stderr when a limit, not the command itself, ended it. */
function explainLimits(result: ExecResult, limits: CommandLimits, outcome: CallOutcome, memoryAllCallsBytes: number | undefined): ExecResult {
  const notes: string[] = [];
  const MIB = 1024 * 1024;
  if (outcome.oomKills > 0) {
    const together = memoryAllCallsBytes === undefined ? '' : `, or all commands running at once together more than their ${Math.round(memoryAllCallsBytes / MIB)} MiB`;
    notes.push(`a process was killed because the command used more than the sandbox's memory limit of ${Math.round(limits.memory_bytes / MIB)} MiB${together}`);
  }
  if (endedBy(result, 'SIGXCPU')) notes.push(`a process was stopped by SIGXCPU: it used the sandbox's CPU time limit of ${limits.cpu_seconds} s`);
  if (endedBy(result, 'SIGXFSZ')) notes.push(`a process was stopped by SIGXFSZ: it wrote a file larger than the sandbox's limit of ${Math.round(limits.file_size_bytes / MIB)} MiB`);
  if (outcome.processLimitHits > 0) notes.push(`the sandbox's limit of ${limits.processes} processes was reached, so some could not be started`);
  if (notes.length === 0) return result;
  const separator = result.stderr === '' || result.stderr.endsWith('\n') ? '' : '\n';
  return { ...result, stderr: `${result.stderr}${separator}${notes.map((note) => `[toolgate sandbox: ${note}]`).join('\n')}\n` };
}

/** The shell reports a child killed by a signal as 128 + its number; bwrap passes that on. */
function endedBy(result: ExecResult, signal: 'SIGXCPU' | 'SIGXFSZ'): boolean {
  return result.signal === signal || result.exit_code === 128 + constants.signals[signal];
}
