// Cloudflare Workers entrypoint: the gateway from the Worker's bindings, built once per isolate.
// The demo tenant is bundled and seeded only where TOOLGATE_DEMO_KEY is set (development).
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { createRuntimeGateway, misconfiguredFetch } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest.ts';

type Env = Record<string, string | undefined>;
let gatewayFetch: ((request: Request, env: Env, ctx: unknown) => Response | Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    if (!gatewayFetch) {
      try {
        gatewayFetch = createRuntimeGateway({ runtime: 'workers', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [] }).fetch;
      } catch (error) {
        gatewayFetch = misconfiguredFetch(error);
      }
    }
    return gatewayFetch(request, env, ctx);
  },
};
