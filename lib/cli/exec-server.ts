import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { jsonLineLogger } from '../dispatch/events.ts';
import type { CommandSandbox } from '../exec/command-sandbox.ts';
import { DEFAULT_COMMAND_LIMITS, type CommandLimits } from '../exec/command-limits.ts';
import { probeCommandSandbox, type SandboxSettings } from '../exec/local-sandbox-probe.ts';
import { DEFAULT_FILE_OPERATIONS_AT_ONCE, startExecServer, type ExecServerOptions } from '../exec/server.ts';

export const EXEC_SECRET_VARIABLE = 'TOOLGATE_EXEC_SECRET';
export const EXEC_TENANTS_VARIABLE = 'TOOLGATE_EXEC_TENANTS';

const MIB = 1024 * 1024;

const USAGE = `Usage: toolgate exec-server --root DIR --tenant NAME [--tenant NAME ...] [--port 8788] [--host 127.0.0.1]
         [--allowed-host NAME ...] [--allow-network] [--read-only-path DIR ...] [--limit-cpu SECONDS]
         [--limit-memory MIB] [--limit-processes N] [--limit-file-size MIB] [--limit-tmp MIB]
         [--max-commands N] [--limit-memory-total MIB] [--unsandboxed] [--max-body-bytes N]
         [--max-body-bytes-at-once N] [--max-file-operations N]

Serves the folder DIR to a toolgate gateway's built-in coding tools (read_file, shell, ...)
over a signed RPC. The secret comes from ${EXEC_SECRET_VARIABLE}, the same value the gateway uses.
--tenant names a tenant (the manifest's "tenant") this server works for; repeat it for several,
or set ${EXEC_TENANTS_VARIABLE}=a,b. Requests for any other tenant are refused and nothing runs.

Every command runs in a bubblewrap sandbox: DIR (read-only for a read-only grant) and the system
folders, nothing else of this host, no network, limits per call. Without a working bubblewrap
(Linux, package bubblewrap) commands are refused, unless --unsandboxed says to run them as
ordinary processes of this user. GET /healthz (unsigned) says which.
  --allow-network        commands may use the network when the manifest asks ("network": true)
  --read-only-path DIR   another host folder commands may read (a toolchain under /opt, say)
  --limit-cpu            CPU seconds per process (default ${DEFAULT_COMMAND_LIMITS.cpu_seconds})
  --limit-memory         MiB for the whole call (default ${DEFAULT_COMMAND_LIMITS.memory_bytes / MIB})
  --limit-processes      processes at once per call (default ${DEFAULT_COMMAND_LIMITS.processes})
  --limit-file-size      MiB per written file (default ${DEFAULT_COMMAND_LIMITS.file_size_bytes / MIB})
  --limit-tmp            MiB of the call's fresh /tmp (default ${DEFAULT_COMMAND_LIMITS.tmp_bytes / MIB})
  --max-commands         commands running at once; more are refused, nothing run (default: as many as
                         half this host's memory holds at --limit-memory, 1 to 8)
  --limit-memory-total   MiB for all commands together (default --max-commands x --limit-memory)
  --allowed-host NAME    another Host name (or name:port) requests may use, e.g. the name in the gateway's
                         URL; by default only the address it listens on (and its loopback names)
  --max-body-bytes       caps one request (default 64 MiB; file contents travel base64, about 4/3 larger)
  --max-body-bytes-at-once  caps the request bodies held at once (default 2 x --max-body-bytes); more: 503
  --max-file-operations  file operations worked on at once (default ${DEFAULT_FILE_OPERATIONS_AT_ONCE}); more wait up to 10 s
  --stop-on-stdin-close  stop when standard input closes (for a parent process that started it)`;

/** Below this many characters a secret is guessable offline from one captured request. */
const RECOMMENDED_SECRET_LENGTH = 32;

export interface ExecServerCommandOptions {
  /** Where the secret is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the server when aborted; default SIGINT or SIGTERM. */
  stop?: AbortSignal;
}

/** `toolgate exec-server`: runs until stopped, then answers the exit code. */
export async function execServerCommand(args: string[], options: ExecServerCommandOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const parsed = parseOptions(args, env);
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
  server: Pick<ExecServerOptions, 'maxBodyBytes' | 'maxBufferedBodyBytes' | 'maxFileOperations' | 'allowedHosts'>;
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

function parseOptions(args: string[], env: Readonly<Record<string, string | undefined>>): ParsedOptions | { exitCode: number } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        root: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        ...Object.fromEntries(Object.keys(COUNT_FLAGS).map((flag) => [flag, { type: 'string' as const }])),
        'allowed-host': { type: 'string', multiple: true },
        tenant: { type: 'string', multiple: true },
        unsandboxed: { type: 'boolean' },
        'allow-network': { type: 'boolean' },
        'read-only-path': { type: 'string', multiple: true },
        ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: 'string' as const }])),
        'stop-on-stdin-close': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`toolgate exec-server: ${(error as Error).message}\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  if (values.help) {
    console.log(USAGE);
    return { exitCode: 0 };
  }
  if (!values.root) {
    console.error(`toolgate exec-server: --root DIR is required (the folder to serve)\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  const tenants = values.tenant ?? (env[EXEC_TENANTS_VARIABLE] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (tenants.length === 0) {
    console.error(
      `toolgate exec-server: name the tenants this server works for: --tenant NAME (repeatable) or ${EXEC_TENANTS_VARIABLE}=a,b, ` +
        `using each manifest's "tenant" value; requests for other tenants are refused\n\n${USAGE}`,
    );
    return { exitCode: 2 };
  }
  const port = values.port === undefined ? 8788 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`toolgate exec-server: --port must be a number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(values.port)}`);
    return { exitCode: 2 };
  }
  const counts: Partial<Record<keyof typeof COUNT_FLAGS, number>> = {};
  for (const [flag, { unit, min, what }] of Object.entries(COUNT_FLAGS)) {
    const given = (values as Record<string, unknown>)[flag];
    if (typeof given !== 'string') continue;
    const value = Number(given);
    if (!Number.isSafeInteger(value) || value < min) {
      console.error(`toolgate exec-server: --${flag} must be ${what}, got ${JSON.stringify(given)}`);
      return { exitCode: 2 };
    }
    counts[flag as keyof typeof COUNT_FLAGS] = value * unit;
  }
  const limits: Partial<CommandLimits> = {};
  for (const [flag, { limit, unit }] of Object.entries(LIMIT_FLAGS)) {
    const given = (values as Record<string, unknown>)[flag];
    if (typeof given !== 'string') continue;
    const value = Number(given);
    if (!Number.isSafeInteger(value) || value < 1) {
      console.error(`toolgate exec-server: --${flag} must be a whole number of at least 1, got ${JSON.stringify(given)}`);
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
      allowedHosts: values['allowed-host'],
    },
    sandbox: {
      unsandboxed: values.unsandboxed === true,
      allowNetwork: values['allow-network'] === true,
      readOnlyPaths: values['read-only-path'],
      limits,
      maxCommands: counts['max-commands'],
      tenants,
      memoryAllCommandsBytes: counts['limit-memory-total'],
    },
    stopOnStdinClose: values['stop-on-stdin-close'] === true,
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
