import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { jsonLineLogger } from '../dispatch/events.ts';
import { startExecServer } from '../exec/server.ts';

export const EXEC_SECRET_VARIABLE = 'TOOLGATE_EXEC_SECRET';
export const EXEC_TENANTS_VARIABLE = 'TOOLGATE_EXEC_TENANTS';

const USAGE = `Usage: toolgate exec-server --root DIR --tenant NAME [--tenant NAME ...] [--port 8788] [--host 127.0.0.1] [--max-body-bytes N]

Serves the folder DIR to a toolgate gateway's built-in coding tools (read_file, shell, ...)
over a signed RPC. The secret comes from ${EXEC_SECRET_VARIABLE}, the same value the gateway uses.
--tenant names a tenant (the manifest's "tenant") this server works for; repeat it for several,
or set ${EXEC_TENANTS_VARIABLE}=a,b. Requests for any other tenant are refused and nothing runs.
Commands run as this user: serve a folder you are willing to let an agent work in.
--max-body-bytes caps one request (default 64 MiB; file contents travel base64, about 4/3 larger).`;

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
  let server: Awaited<ReturnType<typeof startExecServer>>;
  try {
    server = await startExecServer({ root: parsed.root, secret, tenants: parsed.tenants, port: parsed.port, host: parsed.host, maxBodyBytes: parsed.maxBodyBytes, log: jsonLineLogger });
  } catch (error) {
    console.error(`toolgate exec-server: could not start: ${(error as Error).message}`);
    return 1;
  }
  console.log(`toolgate exec-server listening on ${server.url} (root ${resolve(parsed.root)}; tenants ${parsed.tenants.join(', ')})`);
  await stopRequested(options.stop);
  await server.close();
  return 0;
}

interface ParsedOptions {
  root: string;
  tenants: string[];
  port: number;
  host: string;
  maxBodyBytes?: number;
}

function parseOptions(args: string[], env: Readonly<Record<string, string | undefined>>): ParsedOptions | { exitCode: number } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        root: { type: 'string' },
        tenant: { type: 'string', multiple: true },
        port: { type: 'string' },
        host: { type: 'string' },
        'max-body-bytes': { type: 'string' },
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
  const maxBodyBytes = values['max-body-bytes'] === undefined ? undefined : Number(values['max-body-bytes']);
  if (maxBodyBytes !== undefined && (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1024)) {
    console.error(`toolgate exec-server: --max-body-bytes must be a whole number of bytes, at least 1024, got ${JSON.stringify(values['max-body-bytes'])}`);
    return { exitCode: 2 };
  }
  return { root: values.root, tenants, port, host: values.host ?? '127.0.0.1', maxBodyBytes };
}

function stopRequested(stop: AbortSignal | undefined): Promise<void> {
  if (stop) return stop.aborted ? Promise.resolve() : new Promise((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
