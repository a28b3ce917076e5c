import { serve, type ServerType } from '@hono/node-server';
import { resolve } from 'node:path';
import { jsonLineLogger } from '../dispatch/events.ts';
import { createApiKey } from '../governance/api-keys.ts';
import { createGateway } from '../http/gateway.ts';
import type { Manifest } from '../registry/manifest.ts';
import { SqliteStore } from '../stores/sqlite.ts';
import type { Store } from '../stores/store.ts';
import { demoApiKey } from './demo-key.ts';
import { startLocalExecServer, type LocalExecServer } from './local-exec-server.ts';
import { loadManifestFile } from './manifest-file.ts';
import { useNodeCrypto } from './node-crypto.ts';
import { nodeStoreFromEnv } from './node-store.ts';

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
  demoKey: string;
  server: ServerType;
  close(): Promise<void>;
}

/** All scopes the demo key holds: those the demo tools need, plus the operator's. */
const OPERATOR_SCOPES = ['admin', 'approvals:decide', 'audit:read'];

/** The demo's Slack settings come from the environment, so the same manifest works for everyone. */
function withDemoSlack(manifest: Manifest, env: Readonly<Record<string, string | undefined>>): Manifest {
  const channel = env.TOOLGATE_DEMO_SLACK_CHANNEL;
  const approvers = env.TOOLGATE_DEMO_SLACK_APPROVERS?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!channel && !approvers) return manifest;
  return { ...manifest, approvals: { ...manifest.approvals, ...(channel ? { slack_channel: channel } : {}), ...(approvers ? { approvers } : {}) } };
}

function readManifest(path: string): Manifest {
  const loaded = loadManifestFile(path);
  if (loaded.ok) return loaded.manifest;
  const lines = loaded.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  throw new Error(`the manifest ${path} has problems:\n${lines}`);
}

/** Registers the demo key (the store must be reachable: a clear error at start-up otherwise). */
async function registerDemoKey(store: Store, manifest: Manifest, dataDir: string, env: NodeJS.ProcessEnv) {
  const demo = demoApiKey(dataDir, env);
  const scopes = [...new Set([...manifest.tools.flatMap((t) => t.scopes ?? []), ...OPERATOR_SCOPES])];
  await createApiKey(store, { tenant: manifest.tenant, principal: 'demo-user', scopes }, demo.key);
  return demo;
}

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, host: string): Promise<ServerType> {
  return new Promise((resolveServer, reject) => {
    const started = serve({ fetch, port, hostname: host }, () => resolveServer(started));
    started.once('error', reject);
  });
}

/** `toolgate serve`: the gateway on 127.0.0.1 with the demo tenant. */
export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  useNodeCrypto();
  const env = options.env ?? process.env;
  const port = options.port ?? Number(env.PORT ?? 8787);
  const host = options.host ?? env.HOST ?? '127.0.0.1';
  const dataDir = resolve(options.dataDir ?? env.TOOLGATE_DATA_DIR ?? '.toolgate');
  const manifestPath = resolve(options.manifestPath ?? env.TOOLGATE_MANIFEST ?? 'examples/demo/manifest.json');
  const log = options.quiet ? () => {} : jsonLineLogger;

  const loaded = readManifest(manifestPath);
  const store = nodeStoreFromEnv(env, dataDir);
  let execServer: LocalExecServer | undefined;
  try {
    const demo = await registerDemoKey(store, loaded, dataDir, env);
    execServer = await startLocalExecServer(loaded, env);
    const manifest = loaded;
    // The file is what gets published; this machine's exec-server URL and Slack settings are
    // applied when the runtime is built, so they never become part of a stored version.
    const local = execServer;
    const overlay = (m: Manifest) => withDemoSlack(local && m.tenant === loaded.tenant ? { ...m, execution_environment: local.manifest.execution_environment } : m, env);
    const gateway = createGateway({ manifests: [manifest], overlay, store, env: { ...env, ...execServer?.env }, log, serveMetrics: true });
    await gateway.ready;
    const server = await listen(gateway.app.fetch, port, host);
    const address = server.address();
    const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}`;
    if (!options.quiet) {
      console.log(`toolgate listening on ${url}`);
      console.log(`tenant "${manifest.tenant}" manifest version ${manifest.version} (${manifestPath})`);
      if (execServer) console.log(`coding tools: exec-server ${execServer.url} over ${execServer.root}`);
      console.log(`store: ${store.name}${store instanceof SqliteStore ? ` (${store.path})` : ''}`);
      console.log(`demo API key: ${demo.key}  (from ${demo.source})`);
    }
    const running = execServer;
    return {
      url,
      demoKey: demo.key,
      server,
      close: async () => {
        await new Promise<void>((done) => server.close(() => done()));
        await running?.close();
        await store.close();
      },
    };
  } catch (error) {
    await execServer?.close();
    await store.close();
    throw error;
  }
}
