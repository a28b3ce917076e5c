/**
 * Server-side pieces of the HTTP throughput workers (http-server-worker, mcp-server-worker):
 * listening on loopback, the demo gateway with a key, and answering CPU-time requests.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { loadManifestFile } from '../lib/cli/manifest-file.ts';
import { createApiKey } from '../lib/governance/api-keys.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { DEMO_GRANTS } from './runtime-requests.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { CPU_REQUEST, type CpuReply } from './http-protocol.ts';

const DEMO_MANIFEST = fileURLToPath(new URL('../examples/demo/manifest.json', import.meta.url));

/** Serves `fetch` with @hono/node-server on 127.0.0.1 (a free port); resolves to the port. */
export function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<number> {
  return new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    server.once('error', reject);
  });
}

/** The demo tenant's gateway on its own memory store, `apiKey` valid for it. */
export async function demoGateway(apiKey: string, audited = true): Promise<Hono['fetch']> {
  const loaded = loadManifestFile(DEMO_MANIFEST);
  if (!loaded.ok) throw new Error(`demo manifest has problems: ${JSON.stringify(loaded.problems)}`);
  const store = new MemoryStore();
  await createApiKey(store, { tenant: loaded.manifest.tenant, principal: 'bench', scopes: [] }, apiKey);
  // No `log`: createGateway's logger is silent by default, so no log line costs the run anything.
  const gateway = createGateway({ manifests: [loaded.manifest], store, env: { ...DEMO_GRANTS } });
  // Measurement only (the product always audits): tenant runtimes are built on first use from
  // these services, so without a recorder no envelope is chained, hashed or stored.
  if (!audited) gateway.services.audit = undefined;
  await gateway.ready;
  return gateway.app.fetch;
}

/** Tells the main thread this thread's CPU time whenever it asks (around each measured window). */
export function answerCpuRequests(): void {
  // Thread CPU, not wall time: on a shared machine it stays honest when this thread is descheduled.
  parentPort?.on('message', (message) => {
    if (message !== CPU_REQUEST) return;
    const { user, system } = process.threadCpuUsage();
    parentPort?.postMessage({ cpuUs: user + system } satisfies CpuReply);
  });
}
