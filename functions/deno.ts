// Deno entrypoint: `deno run --allow-net --allow-env --allow-read functions/deno.ts` (npm run dev:deno).
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { createRuntimeGateway } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

const env = Deno.env.toObject();
const gateway = createRuntimeGateway({ runtime: 'deno', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [] });
await gateway.ready;
Deno.serve({ port: Number(env.PORT ?? 8787), hostname: env.HOST ?? '127.0.0.1', onListen: ({ hostname, port }) => console.log(`toolgate listening on http://${hostname}:${port} (Deno, store ${gateway.store.name})`) }, (request) => gateway.fetch(request));
