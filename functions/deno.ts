// Deno entrypoint: `deno run --allow-net --allow-env --allow-read functions/deno.ts` (npm run dev:deno).
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { resolvingTransport } from '../lib/egress/fetch.ts';
import { createRuntimeGateway } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  resolveDns(query: string, recordType: 'A' | 'AAAA'): Promise<string[]>;
  serve(options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

/** Every A and AAAA record of a name (a type it lacks answers nothing); egress checks them all before connecting. */
async function resolveHost(hostname: string): Promise<string[]> {
  const answers = await Promise.all((['A', 'AAAA'] as const).map((type) => Deno.resolveDns(hostname, type).catch(() => [] as string[])));
  return answers.flat();
}

const env = Deno.env.toObject();
const gateway = createRuntimeGateway({ runtime: 'deno', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [], egressTransport: resolvingTransport(resolveHost) });
await gateway.ready;
Deno.serve({ port: Number(env.PORT ?? 8787), hostname: env.HOST ?? '127.0.0.1', onListen: ({ hostname, port }) => console.log(`toolgate listening on http://${hostname}:${port} (Deno, store ${gateway.store.name})`) }, (request) => gateway.fetch(request));
