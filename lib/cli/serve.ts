import { serve, type ServerType } from '@hono/node-server';
import type { ExecutionContext } from 'hono';
import { resolve } from 'node:path';
import { silentLogger } from '../dispatch/events.ts';
import { localOriginPolicy, originPolicyFromEnv } from '../http/origin-policy.ts';
import { createRuntimeGateway } from '../http/runtime-gateway.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { SqliteStore } from '../stores/sqlite/sqlite-store.ts';
import { demoKeyLines, demoKeys } from './demo-key.ts';
import { jsonLineWriter } from './json-line-writer.ts';
import { localExecAccess } from './local-exec-access.ts';
import { startLocalExecServer, type LocalExecServer } from './local-exec-server.ts';
import { loadManifestFile } from './manifest-file.ts';
import { useNodeCrypto } from './node-crypto.ts';
import { nodeEgressTransport } from './node-egress.ts';
import { nodeStoreFromEnv } from './node-store.ts';
import { textOf, type Invocation } from './command-line.ts';

const INLINE_EXECUTION_CONTEXT = {} as ExecutionContext;

export interface LocalGatewayOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  manifestPath?: string;
  env?: NodeJS.ProcessEnv;
  quiet?: boolean;
}

export interface LocalGateway {
  url: string;
  /** The agent's key (principal demo-user): calls tools. */
  demoKey: string;
  /** The operator's key (principal demo-admin): approves, administers, reads the audit. */
  demoAdminKey: string;
  server: ServerType;
  close(): Promise<void>;
}

/**
 * The deployment's own manifest file, through a publish's checks (its schemas, patterns, executors
 * and rules) but not the tenant confinement: the operator wrote it, as with the other runtimes' demo.
 */
function readManifest(path: string): Manifest {
  const loaded = loadManifestFile(path);
  if (loaded.ok) return loaded.manifest;
  const lines = loaded.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  throw new Error(`the manifest ${path} has problems:\n${lines}`);
}

function listen(fetch: (request: Request, env: unknown) => Response | Promise<Response>, port: number, host: string): Promise<ServerType> {
  return new Promise((resolveServer, reject) => {
    const started = serve({ fetch, port, hostname: host }, () => resolveServer(started));
    started.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(new Error(`port ${port} (the gateway) is in use on ${host}: stop that process, or set PORT (or --port) to a free port (0 picks one)`));
    });
  });
}

function describeCommands({ health }: LocalExecServer): string {
  if (health.commands === 'sandboxed') return `sandboxed with ${health.sandbox}`;
  return `${health.commands.toUpperCase()}: ${health.reason}`;
}

/** How often `serve` sweeps approvals (reminders, expiry): TOOLGATE_SWEEP_SECONDS, default 30. */
function sweepIntervalMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.TOOLGATE_SWEEP_SECONDS ?? 30);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 3600) throw new Error(`TOOLGATE_SWEEP_SECONDS must be a number of seconds from 1 to 3600 (got ${JSON.stringify(env.TOOLGATE_SWEEP_SECONDS)}); leave it unset for 30`);
  return seconds * 1000;
}

/** Runs the sweep on an interval that never keeps the process alive, one run at a time; answers a stop function. */
function sweepEvery(sweep: () => Promise<unknown>, intervalMs: number, log: (event: string, fields: Record<string, unknown>) => void): () => void {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= sweep()
      .catch((error: Error) => log('tools.approvals.sweep_failed', { level: 'error', error: error.message }))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `toolgate serve` (npm start): the Node runtime of the same gateway, on 127.0.0.1, with the demo
 * tenant seeded from its manifest file, an exec-server beside it for the coding tools, SQLite
 * by default, and the demo's two keys (the agent's, the operator's) that survive restarts.
 */
export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  useNodeCrypto();
  const env = options.env ?? process.env;
  const port = options.port ?? Number(env.PORT ?? 8787);
  const host = options.host ?? env.HOST ?? '127.0.0.1';
  const dataDir = resolve(options.dataDir ?? env.TOOLGATE_DATA_DIR ?? '.toolgate');
  const manifestPath = resolve(options.manifestPath ?? env.TOOLGATE_MANIFEST ?? 'examples/demo/manifest.json');

  const manifest = readManifest(manifestPath);
  const store = nodeStoreFromEnv(env, dataDir);
  const lines = options.quiet ? undefined : jsonLineWriter();
  const log = lines?.log ?? silentLogger;
  let execServer: LocalExecServer | undefined;
  try {
    const demo = demoKeys(dataDir, env);
    execServer = await startLocalExecServer(manifest, env, { quiet: options.quiet });
    const runtimeEnv = { ...env, ...(execServer ? localExecAccess(manifest.tenant, execServer, env) : {}), TOOLGATE_DEMO_KEY: demo.agent.key, TOOLGATE_DEMO_ADMIN_KEY: demo.admin.key };
    // Host/Origin checks (DNS rebinding): on loopback, only the loopback names with the port the
    // server got (known once it listens; nothing is served before).
    let origins = originPolicyFromEnv(runtimeEnv);
    const gateway = createRuntimeGateway({ runtime: 'node', env: runtimeEnv, manifests: [manifest], manifestsChecked: true, store, log, egressTransport: nodeEgressTransport(), origins: () => origins });
    await gateway.ready;
    const stopSweeping = sweepEvery(gateway.sweep, sweepIntervalMs(env), log);
    // Node gives no execution context; Hono's getter for one throws per request without it (a
    // measurable cost), so the app gets one without waitUntil: deferred work is awaited inline (defer.ts).
    const server = await listen((request, env) => gateway.app.fetch(request, env, INLINE_EXECUTION_CONTEXT), port, host);
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    origins = localOriginPolicy(runtimeEnv, host, boundPort);
    const url = `http://${host}:${boundPort}`;
    if (!options.quiet) {
      // One write: whoever reads "listening on" has the lines about what is listening too.
      const banner = [
        `toolgate listening on ${url}`,
        `tenant "${manifest.tenant}" manifest version ${manifest.version} (${manifestPath})`,
        ...(execServer ? [`coding tools: exec-server ${execServer.url} over ${execServer.root} (commands ${describeCommands(execServer)})`] : []),
        `store: ${store.name}${store instanceof SqliteStore ? ` (${store.path})` : ''}`,
        `allowed hosts: ${origins.allowedHosts?.join(', ') ?? 'any (set TOOLGATE_ALLOWED_HOSTS to the names clients use, against DNS rebinding)'}`,
        ...demoKeyLines(demo),
        `console: ${url}/console  (sign in with the demo admin key)`,
      ];
      lines?.flush(); // the start-up's log lines (tools.registered) come before the banner, as before
      console.log(banner.join('\n'));
    }
    const running = execServer;
    return {
      url,
      demoKey: demo.agent.key,
      demoAdminKey: demo.admin.key,
      server,
      close: async () => {
        stopSweeping();
        await new Promise<void>((done) => server.close(() => done()));
        // The spans of the last calls go to the collector before the process ends.
        await gateway.tracer?.shutdown();
        await running?.close();
        await store.close();
        lines?.close();
      },
    };
  } catch (error) {
    await execServer?.close();
    await store.close();
    lines?.close();
    throw error;
  }
}

/** `toolgate serve`: the gateway until SIGINT or SIGTERM. */
export async function serveCommand(invocation: Invocation): Promise<number> {
  const port = textOf(invocation, 'port');
  const gateway = await startLocalGateway({ port: port === undefined ? undefined : Number(port), host: textOf(invocation, 'host'), manifestPath: textOf(invocation, 'manifest') });
  const stop = () => void gateway.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => {});
}
