// Cloudflare Workers entrypoint: the gateway from the Worker's bindings, built at module scope
// (bindings come from `cloudflare:workers`) so the work falls in the isolate's start-up, not in
// its first request's CPU time; building it does no I/O, which module scope forbids. The demo
// tenant is bundled and seeded only where TOOLGATE_DEMO_KEY is set (development).
import { env as bindings } from 'cloudflare:workers';
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { createRuntimeGateway, misconfiguredFetch } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest.ts';

type Env = Record<string, string | undefined>;

function build(env: Env): (request: Request, env: Env, ctx: unknown) => Response | Promise<Response> {
  try {
    return createRuntimeGateway({ runtime: 'workers', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [] }).fetch;
  } catch (error) {
    return misconfiguredFetch(error);
  }
}

const gatewayFetch = build(bindings as Env);

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    return gatewayFetch(request, env, ctx);
  },
};
