/**
 * The servers of the http-throughput benchmark, run in a worker thread: its own event loop and
 * V8 heap, so the load generator in the main thread never steals time from the handlers.
 */
import { Hono } from 'hono';
import { parentPort, workerData } from 'node:worker_threads';
import { useNodeCrypto } from '../lib/cli/node-crypto.ts';
import { answerCpuRequests, demoGateway, listen } from './bench-servers.ts';
import type { ServerPorts, ServerWorkerData } from './http-protocol.ts';

// As on the Node entrypoints: node:crypto's synchronous SHA-256.
useNodeCrypto();

/** The reference: Hono on the same adapter, reading and parsing a JSON body, answering JSON. */
function bareApp(): Hono {
  const app = new Hono();
  app.post('/bare', async (c) => {
    await c.req.json();
    return c.json({ ok: true });
  });
  return app;
}

async function start(): Promise<void> {
  const { apiKey } = workerData as ServerWorkerData;
  const ports: ServerPorts = {
    gatewayPort: await listen(await demoGateway(apiKey)),
    unauditedPort: await listen(await demoGateway(apiKey, false)),
    barePort: await listen(bareApp().fetch),
  };
  parentPort?.postMessage(ports);
  answerCpuRequests();
}

await start();
