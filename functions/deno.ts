// Deno entrypoint: `deno run --allow-net --allow-env --allow-read functions/deno.ts` (npm run dev:deno).
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { resolvingTransport } from '../lib/egress/fetch.ts';
import { localOriginPolicy, originPolicyFromEnv } from '../lib/http/origin-policy.ts';
import { createRuntimeGateway } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  resolveDns(query: string, recordType: 'A' | 'AAAA'): Promise<string[]>;
  cron?(name: string, schedule: string, handler: () => Promise<unknown>): Promise<void>;
  unrefTimer(id: number): void;
  serve(options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void }, handler: (request: Request) => Promise<Response>): { shutdown(): Promise<void> };
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
  exit(code: number): never;
};

/** Every A and AAAA record of a name (a type it lacks answers nothing); egress checks them all before connecting. */
async function resolveHost(hostname: string): Promise<string[]> {
  const answers = await Promise.all((['A', 'AAAA'] as const).map((type) => Deno.resolveDns(hostname, type).catch(() => [] as string[])));
  return answers.flat();
}

const env = Deno.env.toObject();
const hostname = env.HOST ?? '127.0.0.1';
// On a loopback address only the loopback names with the bound port are served (DNS rebinding;
// TOOLGATE_ALLOWED_HOSTS overrides); the port is known once listening, before any request.
let origins = originPolicyFromEnv(env);
const gateway = createRuntimeGateway({ runtime: 'deno', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [], manifestsChecked: true, egressTransport: resolvingTransport(resolveHost), origins: () => origins });
await gateway.ready;
const onListen = (address: { hostname: string; port: number }) => {
  origins = localOriginPolicy(env, hostname, address.port);
  console.log(`toolgate listening on http://${address.hostname}:${address.port} (Deno, store ${gateway.store.name})`);
};
// Approval reminders and expiry, with nobody reading the approvals: Deno.cron where the runtime
// has it (Deno Deploy; --unstable-cron), else a timer that does not keep the process alive.
const sweep = () => gateway.sweep().catch((error: Error) => console.error(JSON.stringify({ event: 'tools.approvals.sweep_failed', error: error.message })));
if (typeof Deno.cron === 'function') Deno.cron('toolgate approvals sweep', '* * * * *', sweep);
else Deno.unrefTimer(setInterval(sweep, Number(env.TOOLGATE_SWEEP_SECONDS ?? 30) * 1000) as unknown as number);
const server = Deno.serve({ port: Number(env.PORT ?? 8787), hostname, onListen }, (request) => gateway.fetch(request));
// Ctrl-C or a stop: the calls in flight finish and the spans not yet exported go to the collector
// (a batch waits up to OTEL_BSP_SCHEDULE_DELAY) before the process ends; a second signal ends it at once.
let stopping = false;
const stop = () => {
  if (stopping) Deno.exit(130);
  stopping = true;
  server.shutdown().then(() => gateway.tracer?.shutdown()).finally(() => Deno.exit(0));
};
Deno.addSignalListener('SIGINT', stop);
Deno.addSignalListener('SIGTERM', stop);
