import type { Manifest } from '../registry/manifest.ts';
import { createApiKey } from '../governance/api-keys.ts';
import { MemoryStore } from '../stores/memory.ts';
import { createGateway } from './gateway.ts';

export interface EdgeGatewayConfig {
  env: Readonly<Record<string, string | undefined>>;
  manifests: Manifest[];
}

/**
 * The gateway for runtimes whose entry only hands over env bindings (Workers, Deno): built
 * once per isolate, with the demo key (TOOLGATE_DEMO_KEY) registered before the first request.
 */
export function createEdgeGateway(config: EdgeGatewayConfig) {
  const store = new MemoryStore();
  const gateway = createGateway({ manifests: config.manifests, store, env: config.env });
  const demoKey = config.env.TOOLGATE_DEMO_KEY;
  const tenant = config.manifests[0]?.tenant;
  const ready = demoKey && tenant ? createApiKey(store, { tenant, principal: 'demo-user', scopes: ['admin'] }, demoKey) : Promise.resolve();
  return {
    async fetch(request: Request, ...rest: unknown[]): Promise<Response> {
      await ready;
      return gateway.fetch(request, ...rest);
    },
  };
}
