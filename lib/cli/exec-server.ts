import { resolve } from 'node:path';
import { jsonLineLogger } from '../dispatch/events.ts';
import type { CommandSandbox } from '../exec/sandbox/command-sandbox.ts';
import type { CommandLimits } from '../exec/sandbox/command-limits.ts';
import { probeCommandSandbox, type SandboxSettings } from '../exec/sandbox/probe.ts';
import { startExecServer, type ExecServerOptions } from '../exec/server/exec-server.ts';
import { flagOf, listOf, parseCommandLine, textOf, type Invocation } from './command-line.ts';
import { commandTree } from './command-tree.ts';

export const EXEC_SECRET_VARIABLE = 'TOOLGATE_EXEC_SECRET';
export const EXEC_TENANTS_VARIABLE = 'TOOLGATE_EXEC_TENANTS';

const MIB = 1024 * 1024;

/** Below this many characters a secret is guessable offline from one captured request. */
const RECOMMENDED_SECRET_LENGTH = 32;

export interface ExecServerCommandOptions {
  /** Where the secret is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the server when aborted; default SIGINT or SIGTERM. */
  stop?: AbortSignal;
}

/** `toolgate exec-server ARGS` (the words after `exec-server`): runs until stopped, then answers the exit code. */
export async function execServerCommand(args: string[], options: ExecServerCommandOptions = {}): Promise<number> {
  const parsed = await parseCommandLine(commandTree(), ['exec-server', ...args]);
  return 'exitCode' in parsed ? parsed.exitCode : runExecServer(parsed.invocation, options);
}

/** `toolgate exec-server`, its command line parsed: runs until stopped, then answers the exit code. */
export async function runExecServer(invocation: Invocation, options: ExecServerCommandOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const parsed = parseOptions(invocation, env);
  if ('exitCode' in parsed) return parsed.exitCode;
  const secret = env[EXEC_SECRET_VARIABLE];
  if (!secret) {
    console.error(
      `toolgate exec-server: ${EXEC_SECRET_VARIABLE} is not set. Set it to a long random value shared with the gateway, e.g.\n` +
        `  export ${EXEC_SECRET_VARIABLE}=$(openssl rand -hex 32)\n` +
        `and give the gateway the same value.`,
    );
    return 2;
  }
  if (secret.length < RECOMMENDED_SECRET_LENGTH) {
    console.error(`toolgate exec-server: warning: ${EXEC_SECRET_VARIABLE} is shorter than ${RECOMMENDED_SECRET_LENGTH} characters; use e.g. $(openssl rand -hex 32)`);
  }
  let sandbox: CommandSandbox;
  let server: Awaited<ReturnType<typeof startExecServer>>;
  try {
    sandbox = await probeCommandSandbox(parsed.sandbox);
  } catch (error) {
    console.error(`toolgate exec-server: ${(error as Error).message}`);
    return 2;
  }
  try {
    server = await startExecServer({ root: parsed.root, secret, tenants: parsed.tenants, port: parsed.port, host: parsed.host, ...parsed.server, log: jsonLineLogger, sandbox });
  } catch (error) {
    await sandbox.close();
    console.error(`toolgate exec-server: could not start: ${(error as Error).message}`);
    return 1;
  }
  console.log(`toolgate exec-server listening on ${server.url} (root ${resolve(parsed.root)}; tenants ${parsed.tenants.join(', ')})`);
  console.log(describeCommands(sandbox));
  if (parsed.server.allowHardLinks) console.log('files: hard links ALLOWED (--allow-hard-links): the file tools read and write files with several names, which may lie outside the root');
  await stopRequested(options.stop, parsed.stopOnStdinClose);
  await server.close();
  await sandbox.close();
  return 0;
}

/** One line for the operator: how commands will run, and why when not sandboxed. */
function describeCommands(sandbox: CommandSandbox): string {
  const report = sandbox.report();
  if (report.commands === 'refused') return `commands: REFUSED, no usable sandbox (${report.reason}); see --help`;
  if (report.commands === 'unsandboxed') {
    const atOnce = report.limits.commands_at_once ? `; at most ${report.limits.commands_at_once.value} at once` : '';
    return `commands: UNSANDBOXED (${report.reason}): they run as this user, with this host's files and network${atOnce}`;
  }
  const limits = Object.entries(report.limits).map(([name, limit]) => `${name} ${limit.value} (${limit.enforced_by})`).join(', ');
  const notEnforced = report.reason ? `; not enforced: ${report.reason}` : '';
  return `commands: sandboxed with bubblewrap, network ${report.network}; limits: ${limits}${notEnforced}; setuid and setgid files: ${report.setuid_files ?? 'allowed'}`;
}

interface ParsedOptions {
  root: string;
  tenants: string[];
  port: number;
  host: string;
  server: Pick<ExecServerOptions, 'maxBodyBytes' | 'maxBufferedBodyBytes' | 'maxFileOperations' | 'allowedHosts' | 'allowHardLinks'>;
  sandbox: SandboxSettings;
  stopOnStdinClose: boolean;
}

const LIMIT_FLAGS: Record<string, { limit: keyof CommandLimits; unit: number }> = {
  'limit-cpu': { limit: 'cpu_seconds', unit: 1 },
  'limit-memory': { limit: 'memory_bytes', unit: MIB },
  'limit-processes': { limit: 'processes', unit: 1 },
  'limit-file-size': { limit: 'file_size_bytes', unit: MIB },
  'limit-tmp': { limit: 'tmp_bytes', unit: MIB },
};

/** Whole-number flags of the server and of all commands together, each at least its minimum. */
const COUNT_FLAGS = {
  'max-body-bytes': { unit: 1, min: 1024, what: 'a whole number of bytes, at least 1024' },
  'max-body-bytes-at-once': { unit: 1, min: 1024, what: 'a whole number of bytes, at least 1024' },
  'max-file-operations': { unit: 1, min: 1, what: 'a whole number of at least 1' },
  'max-commands': { unit: 1, min: 1, what: 'a whole number of at least 1' },
  'limit-memory-total': { unit: MIB, min: 1, what: 'a whole number of MiB, at least 1' },
} as const;

function parseOptions(invocation: Invocation, env: Readonly<Record<string, string | undefined>>): ParsedOptions | { exitCode: number } {
  const values = { root: textOf(invocation, 'root'), port: textOf(invocation, 'port'), host: textOf(invocation, 'host') };
  if (!values.root) {
    console.error('toolgate exec-server: --root DIR is required (the folder to serve); see toolgate exec-server --help');
    return { exitCode: 2 };
  }
  const tenants = listOf(invocation, 'tenant') ?? (env[EXEC_TENANTS_VARIABLE] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (tenants.length === 0) {
    console.error(
      `toolgate exec-server: name the tenants this server works for: --tenant NAME (repeatable) or ${EXEC_TENANTS_VARIABLE}=a,b, ` +
        `using each manifest's "tenant" value; requests for other tenants are refused`,
    );
    return { exitCode: 2 };
  }
  const port = values.port === undefined ? 8788 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`toolgate exec-server: --port must be a number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(values.port)}`);
    return { exitCode: 2 };
  }
  const counts: Partial<Record<keyof typeof COUNT_FLAGS, number>> = {};
  for (const [name, { unit, min, what }] of Object.entries(COUNT_FLAGS)) {
    const given = textOf(invocation, name);
    if (typeof given !== 'string') continue;
    const value = Number(given);
    if (!Number.isSafeInteger(value) || value < min) {
      console.error(`toolgate exec-server: --${name} must be ${what}, got ${JSON.stringify(given)}`);
      return { exitCode: 2 };
    }
    counts[name as keyof typeof COUNT_FLAGS] = value * unit;
  }
  const limits: Partial<CommandLimits> = {};
  for (const [name, { limit, unit }] of Object.entries(LIMIT_FLAGS)) {
    const given = textOf(invocation, name);
    if (typeof given !== 'string') continue;
    const value = Number(given);
    if (!Number.isSafeInteger(value) || value < 1) {
      console.error(`toolgate exec-server: --${name} must be a whole number of at least 1, got ${JSON.stringify(given)}`);
      return { exitCode: 2 };
    }
    limits[limit] = value * unit;
  }
  return {
    root: values.root,
    tenants,
    port,
    host: values.host ?? '127.0.0.1',
    server: {
      maxBodyBytes: counts['max-body-bytes'],
      maxBufferedBodyBytes: counts['max-body-bytes-at-once'],
      maxFileOperations: counts['max-file-operations'],
      allowedHosts: listOf(invocation, 'allowed-host'),
      allowHardLinks: flagOf(invocation, 'allow-hard-links'),
    },
    sandbox: {
      unsandboxed: flagOf(invocation, 'unsandboxed'),
      allowNetwork: flagOf(invocation, 'allow-network'),
      readOnlyPaths: listOf(invocation, 'read-only-path'),
      limits,
      maxCommands: counts['max-commands'],
      tenants,
      memoryAllCommandsBytes: counts['limit-memory-total'],
    },
    stopOnStdinClose: flagOf(invocation, 'stop-on-stdin-close'),
  };
}

/**
 * Resolves when the caller aborts `stop`, or (without one) on SIGINT or SIGTERM; with
 * `onStdinClose` also when standard input ends: the parent holding its other end has exited,
 * however it did, so the server never outlives it.
 */
function stopRequested(stop: AbortSignal | undefined, onStdinClose: boolean): Promise<void> {
  return new Promise((resolve) => {
    // The signal handlers stay: a second SIGTERM (a supervisor following up on Ctrl-C) must not
    // cut the shutdown short, which removes the sandbox's cgroups and /etc copy.
    const done = () => {
      process.stdin.off('end', done);
      process.stdin.off('close', done);
      if (onStdinClose) process.stdin.pause();
      resolve();
    };
    if (stop) {
      if (stop.aborted) return done();
      stop.addEventListener('abort', done, { once: true });
    } else {
      process.on('SIGINT', done);
      process.on('SIGTERM', done);
    }
    if (onStdinClose) {
      process.stdin.on('end', done);
      process.stdin.on('close', done);
      process.stdin.resume();
    }
  });
}
