import { commandEnvironment } from './command-env.ts';
import type { CommandLimits } from './command-limits.ts';
import { ExecEnvironmentError, type ExecResult } from '../environment.ts';

/** One command as LocalExecutionEnvironment asks for it, its paths already checked. */
export interface CommandRequest {
  command: string;
  /** The environment root's real path. */
  workspace: string;
  /** An absolute folder inside the workspace. */
  cwd: string;
  /** The caller's explicit variables (ExecOptions.env). */
  env?: Record<string, string>;
  readOnly: boolean;
  network: boolean;
  /** How long the command may run (it is stopped then). */
  timeoutMs: number;
  /** Who it runs for: the tenant the exec-server's signed request named (commands are shared between tenants). */
  tenant?: string;
}

/** The process that runs one command (see runCommand). */
export interface ProcessSpec {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** Starts the process and answers once it ended (runCommand, in production). */
export type StartProcess = (spec: ProcessSpec) => Promise<ExecResult>;

/** A limit's name in /healthz: each call's own, or the exec-server's over all its commands together. */
export type LimitName = keyof CommandLimits | 'commands_at_once' | 'commands_per_tenant' | 'memory_bytes_all_commands';

/** What GET /healthz on the exec-server says about commands; nothing secret (no paths, no environment). */
export interface SandboxReport {
  sandbox: 'bubblewrap' | 'none';
  commands: 'sandboxed' | 'unsandboxed' | 'refused';
  reason?: string;
  network: 'never' | 'when the manifest asks';
  /** Sandboxed commands: whether they can make setuid or setgid files (`refused (seccomp filter for x86_64)`), and why. */
  setuid_files?: string;
  limits: Partial<Record<LimitName, { value: number; enforced_by: string }>>;
  /** Commands running right now (see CommandsAtOnce). */
  commands_running?: number;
}

/** How an exec-server runs commands: in a sandbox, deliberately without one, or not at all. */
export interface CommandSandbox {
  report(): SandboxReport;
  /**
   * Runs one command through `start`, then kills whatever of it is left and frees what the call
   * held. Throws ExecEnvironmentError, having started nothing, when the command may not run here.
   */
  run(request: CommandRequest, start: StartProcess): Promise<ExecResult>;
  close(): Promise<void>;
}

export type ServerEnv = () => Readonly<Record<string, string | undefined>>;

export interface UnsandboxedCommandsOptions {
  allowNetwork: boolean;
  /** Why there is no sandbox, for /healthz. */
  reason: string;
  /** Where PATH, HOME, TMPDIR, LANG, LC_*, TERM and TZ come from; default process.env. */
  serverEnv?: ServerEnv;
}

/**
 * `--unsandboxed`: commands run as ordinary processes of the server's user, with its files and
 * network, started in the workspace (the operator chose this explicitly). What still holds: the
 * allowlisted environment, the process group killed on timeout, the output caps. A read_only call
 * cannot be honoured, so it is refused.
 */
export class UnsandboxedCommands implements CommandSandbox {
  readonly #options: UnsandboxedCommandsOptions;

  constructor(options: UnsandboxedCommandsOptions) {
    this.#options = options;
  }

  report(): SandboxReport {
    return { sandbox: 'none', commands: 'unsandboxed', reason: this.#options.reason, network: 'when the manifest asks', limits: {} };
  }

  async run(request: CommandRequest, start: StartProcess): Promise<ExecResult> {
    if (request.readOnly) {
      throw new ExecEnvironmentError(
        'unavailable',
        'this exec-server runs commands without a sandbox (--unsandboxed), so it cannot run one with the workspace read-only: nothing was run. Its operator must install bubblewrap and restart it without --unsandboxed',
      );
    }
    if (request.network && !this.#options.allowNetwork) throw networkRefused();
    const env = commandEnvironment((this.#options.serverEnv ?? (() => process.env))(), request.env, { sandboxed: false });
    return start({ file: '/bin/bash', args: ['-c', request.command], env, cwd: request.cwd });
  }

  async close(): Promise<void> {}
}

/** No usable sandbox and no --unsandboxed: commands are refused, with how to fix it. */
export class RefusedCommands implements CommandSandbox {
  readonly #reason: string;

  constructor(reason: string) {
    this.#reason = reason;
  }

  report(): SandboxReport {
    return { sandbox: 'none', commands: 'refused', reason: this.#reason, network: 'never', limits: {} };
  }

  async run(): Promise<ExecResult> {
    throw new ExecEnvironmentError(
      'unavailable',
      `this exec-server refuses to run commands because it has no usable sandbox (${this.#reason}): nothing was run. ` +
        'Its operator can install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on Linux with user namespaces allowed, ' +
        'or restart it with --unsandboxed to run commands without confinement (npm start: TOOLGATE_EXEC_UNSANDBOXED=1)',
    );
  }

  async close(): Promise<void> {}
}

/** A call asked for the network where the operator did not allow it. */
export function networkRefused(): ExecEnvironmentError {
  return new ExecEnvironmentError(
    'invalid_request',
    'this command asked for network access (the manifest\'s execution_environment.network), which this exec-server does not allow: nothing was run. Its operator must start it with --allow-network, or the manifest must drop "network": true',
  );
}
