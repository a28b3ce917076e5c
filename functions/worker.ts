// Cloudflare Workers entrypoint: the gateway from the Worker's bindings, built at module scope
// (bindings come from `cloudflare:workers`) so the work falls in the isolate's start-up, not in
// its first request's CPU time; building it does no I/O, which module scope forbids. The demo
// tenant is bundled and seeded only where TOOLGATE_DEMO_KEY is set (development).
import { env as bindings } from 'cloudflare:workers';
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { jsonLineLogger } from '../lib/dispatch/events.ts';
import { createRuntimeGateway, misconfiguredFetch } from '../lib/http/runtime-gateway.ts';
import { warmStart } from '../lib/http/warm-start.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';

type Env = Record<string, string | undefined>;

type Gateway = { fetch: (request: Request, env: Env, ctx: unknown) => Response | Promise<Response>; sweep?: () => Promise<unknown> };

function build(env: Env): Gateway {
  try {
    const gateway = createRuntimeGateway({ runtime: 'workers', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [], manifestsChecked: true });
    void warmStart(gateway.app, gateway.services);
    return gateway;
  } catch (error) {
    return { fetch: misconfiguredFetch(error) };
  }
}

const gateway = build(bindings as Env);
// An isolate's first console.log loads workerd's formatting code, a few ms of CPU: logged here, in
// the isolate's start-up (not billed to a request), instead of inside the first call.
jsonLineLogger('gateway.isolate_started', { runtime: 'workers' });

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    return gateway.fetch(request, env, ctx);
  },
  /** The cron trigger (wrangler.toml [triggers]): approval reminders and expiry, with nobody reading the approvals. */
  scheduled(_event: unknown, _env: Env, ctx: { waitUntil(work: Promise<unknown>): void }): void {
    if (gateway.sweep) ctx.waitUntil(gateway.sweep());
  },
};
