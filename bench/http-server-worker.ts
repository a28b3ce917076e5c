/**
 * The servers of the http-throughput benchmark, run in a worker thread: its own event loop and
 * V8 heap, so the load generator in the main thread never steals time from the handlers.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { loadManifestFile } from '../lib/cli/manifest-file.ts';
import { useNodeCrypto } from '../lib/cli/node-crypto.ts';
import { createApiKey } from '../lib/governance/api-keys.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { CPU_REQUEST, type CpuReply, type ServerPorts, type ServerWorkerData } from './http-protocol.ts';

// As on the Node entrypoints: node:crypto's synchronous SHA-256.
useNodeCrypto();

const DEMO_MANIFEST = fileURLToPath(new URL('../examples/demo/manifest.json', import.meta.url));

function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<number> {
  return new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    server.once('error', reject);
  });
}

/** The reference: Hono on the same adapter, reading and parsing a JSON body, answering JSON. */
function bareApp(): Hono {
  const app = new Hono();
  app.post('/bare', async (c) => {
    await c.req.json();
    return c.json({ ok: true });
  });
  return app;
}

async function gatewayApp(apiKey: string, audited = true): Promise<Hono['fetch']> {
  const loaded = loadManifestFile(DEMO_MANIFEST);
  if (!loaded.ok) throw new Error(`demo manifest has problems: ${JSON.stringify(loaded.problems)}`);
  const store = new MemoryStore();
  await createApiKey(store, { tenant: loaded.manifest.tenant, principal: 'bench', scopes: [] }, apiKey);
  // No `log`: createGateway's logger is silent by default, so no log line costs the run anything.
  const gateway = createGateway({ manifests: [loaded.manifest], store, env: {} });
  // Measurement only (the product always audits): tenant runtimes are built on first use from
  // these services, so without a recorder no envelope is chained, hashed or stored.
  if (!audited) gateway.services.audit = undefined;
  await gateway.ready;
  return gateway.app.fetch;
}

async function start(): Promise<void> {
  const { apiKey } = workerData as ServerWorkerData;
  const ports: ServerPorts = {
    gatewayPort: await listen(await gatewayApp(apiKey)),
    unauditedPort: await listen(await gatewayApp(apiKey, false)),
    barePort: await listen(bareApp().fetch),
  };
  parentPort?.postMessage(ports);
  // Thread CPU, not wall time: on a shared machine it stays honest when this thread is descheduled.
  parentPort?.on('message', (message) => {
    if (message !== CPU_REQUEST) return;
    const { user, system } = process.threadCpuUsage();
    parentPort?.postMessage({ cpuUs: user + system } satisfies CpuReply);
  });
}

await start();
