import { createApiKey } from '../../lib/governance/api-keys.ts';
import { createGateway, type GatewayConfig } from '../../lib/http/gateway.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';

/**
 * Test servers listen on loopback, which the egress policy refuses by default: tests allow it
 * explicitly, as an operator would (TOOLGATE_EGRESS_ALLOW). A test of the refusal sets its own.
 */
export const LOOPBACK_EGRESS_ALLOW = '127.0.0.1,[::1],localhost';

export interface TestKey {
  tenant: string;
  principal?: string;
  scopes?: string[];
}

/** A gateway over a memory store with one API key per entry of `keys` (key name → principal). */
export async function testGateway(manifests: Manifest[], keys: Record<string, TestKey>, config: Partial<GatewayConfig> = {}) {
  const store = config.store ?? new MemoryStore();
  for (const [key, principal] of Object.entries(keys)) {
    await createApiKey(store, { tenant: principal.tenant, principal: principal.principal ?? `${principal.tenant}-user`, scopes: principal.scopes ?? [] }, key);
  }
  const gateway = createGateway({ manifests, store, ...config, env: { TOOLGATE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW, ...config.env } });
  await gateway.ready;
  const request = (path: string, init: RequestInit & { key?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set('authorization', `Bearer ${init.key}`);
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    return gateway.app.request(path, { ...init, headers, body, method: init.method ?? (body !== undefined ? 'POST' : 'GET') });
  };
  return { ...gateway, store, request };
}
