// Cloudflare Workers entrypoint: builds the gateway from the Worker's bindings on first request.
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { createEdgeGateway } from '../lib/http/edge-gateway.ts';
import type { Manifest } from '../lib/registry/manifest.ts';

let gateway: ReturnType<typeof createEdgeGateway> | undefined;

export default {
  fetch(request: Request, env: Record<string, string | undefined>, ctx: unknown): Promise<Response> {
    gateway ??= createEdgeGateway({ env, manifests: [demoManifest as Manifest] });
    return gateway.fetch(request, env, ctx);
  },
};
