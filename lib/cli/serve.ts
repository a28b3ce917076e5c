import { serve, type ServerType } from '@hono/node-server';
import { resolve } from 'node:path';
import { jsonLineLogger } from '../dispatch/events.ts';
import { createApiKey } from '../governance/api-keys.ts';
import { createGateway } from '../http/gateway.ts';
import { nodeStoreFromEnv } from './node-store.ts';
import { SqliteStore } from '../stores/sqlite.ts';
import { demoApiKey } from './demo-key.ts';
import { useNodeCrypto } from './node-crypto.ts';
import { startLocalExecServer } from './local-exec-server.ts';
import { loadManifestFile } from './manifest-file.ts';

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

/** `toolgate serve`: the gateway on 127.0.0.1 with the demo tenant. */
export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  useNodeCrypto();
  const env = options.env ?? process.env;
  const port = options.port ?? Number(env.PORT ?? 8787);
  const host = options.host ?? env.HOST ?? '127.0.0.1';
  const dataDir = resolve(options.dataDir ?? env.TOOLGATE_DATA_DIR ?? '.toolgate');
  const manifestPath = resolve(options.manifestPath ?? env.TOOLGATE_MANIFEST ?? 'examples/demo/manifest.json');
  const log = options.quiet ? () => {} : jsonLineLogger;

  const loaded = loadManifestFile(manifestPath);
  if (!loaded.ok) {
    const lines = loaded.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
    throw new Error(`the manifest ${manifestPath} has problems:\n${lines}`);
  }
  const execServer = await startLocalExecServer(loaded.manifest, env);
  const manifest = execServer?.manifest ?? loaded.manifest;
  const gatewayEnv = { ...env, ...execServer?.env };
  const store = nodeStoreFromEnv(env, dataDir);
  const { key, source } = demoApiKey(dataDir, env);
  const scopes = [...new Set([...manifest.tools.flatMap((t) => t.scopes ?? []), ...OPERATOR_SCOPES])];
  await createApiKey(store, { tenant: manifest.tenant, principal: 'demo-user', scopes }, key);

  const { app } = createGateway({ manifests: [manifest], store, env: gatewayEnv, log, serveMetrics: true });
  const server = await new Promise<ServerType>((resolveServer, reject) => {
    const started = serve({ fetch: app.fetch, port, hostname: host }, () => resolveServer(started));
    started.once('error', reject);
  });
  const address = server.address();
  const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}`;
  if (!options.quiet) {
    console.log(`toolgate listening on ${url}`);
    console.log(`tenant "${manifest.tenant}" manifest version ${manifest.version} (${manifestPath})`);
    if (execServer) console.log(`coding tools: exec-server ${execServer.url} over ${execServer.root}`);
    console.log(`store: ${store.name}${store instanceof SqliteStore ? ` (${store.path})` : ''}`);
    console.log(`demo API key: ${key}  (from ${source})`);
  }
  return {
    url,
    demoKey: key,
    server,
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
      await execServer?.close();
      await store.close();
    },
  };
}
