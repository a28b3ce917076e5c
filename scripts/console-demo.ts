/**
 * Demo data for the console (screenshots and the console benchmark): tenant "acme" with an agent,
 * an admin and an approver key, calls waiting for approval, an audited thread with an approved
 * call, and more than one manifest version.
 */
import { createApiKey } from '../lib/governance/api-keys.ts';
import { ApiKeyLifecycle } from '../lib/governance/key-lifecycle.ts';
import { createGateway } from '../lib/http/gateway.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';
import { MemoryStore } from '../lib/stores/memory.ts';

export const DEMO_KEYS = { agent: 'tg_demo_agent_0000000000000000', alice: 'tg_demo_alice_0000000000000000', bob: 'tg_demo_bob_00000000000000000' };

const echoTool = (name: string, description: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name, description, tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' }, ...properties }, required: ['text'] }, ...extra,
});

/** Version 1 and up; each later version adds a tool, so a diff has something to show. */
export function demoManifest(version: number): Manifest {
  const added = Array.from({ length: version - 1 }, (_, i) => echoTool(`close_ticket_v${i + 2}`, 'Closes a support ticket.', { ticket: { type: 'string' } }));
  const tools = [
    { name: 'echo', executor: { kind: 'builtin' } },
    echoTool('publish_post', 'Publishes a post to the company blog.', { channel: { type: 'string' }, api_token: { type: 'string', 'x-sensitive': true } }),
    echoTool('refund_order', 'Refunds an order in full.', { order_id: { type: 'string' }, amount_eur: { type: 'number' }, card_token: { type: 'string', 'x-sensitive': true } }, { approval: 'always', approvals: { quorum: 2 } }),
    ...added,
  ];
  return { format: 'toolgate.manifest/v1', tenant: 'acme', version: String(version), profile: 'openai', description: `Demo version ${version}`, policy: { read: 'grant', write: 'review', execute: 'deny' }, tools } as unknown as Manifest;
}

/** A gateway on a memory store with the demo keys and version 1 active. */
export async function createDemoGateway() {
  const store = new MemoryStore();
  await createApiKey(store, { tenant: 'acme', principal: 'support-bot', scopes: [] }, DEMO_KEYS.agent);
  await createApiKey(store, { tenant: 'acme', principal: 'alice@acme.example', scopes: ['admin', 'approvals:decide', 'audit:read'] }, DEMO_KEYS.alice);
  await createApiKey(store, { tenant: 'acme', principal: 'bob@acme.example', scopes: ['approvals:decide'] }, DEMO_KEYS.bob);
  // Keys the Keys page lists (the three above predate the lifecycle's index, as a demo key does).
  const lifecycle = new ApiKeyLifecycle(store);
  await lifecycle.create('acme', { principal: 'support-bot', scopes: [], expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString() }, { operator: 'alice@acme.example' });
  await lifecycle.create('acme', { principal: 'oncall@acme.example', scopes: ['approvals:decide', 'audit:read'], expires_at: null }, { operator: 'alice@acme.example' });
  const rotated = await lifecycle.create('acme', { principal: 'ci-deploy', scopes: ['admin'], expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() }, { operator: 'alice@acme.example' });
  await lifecycle.rotate('acme', rotated.info.id, { operator: 'alice@acme.example' }, { grace_seconds: 86_400 });
  const revoked = await lifecycle.create('acme', { principal: 'old-laptop', scopes: ['approvals:read'], expires_at: null }, { operator: 'alice@acme.example' });
  await lifecycle.revoke('acme', revoked.info.id, 'alice@acme.example');
  const gateway = createGateway({ manifests: [demoManifest(1)], store, env: {}, manifestCacheMs: 0 });
  await gateway.ready;
  return { gateway, store };
}

export type ApiCall = (key: string, path: string, json?: unknown) => Promise<Record<string, unknown>>;

/** An ApiCall over `fetch` (a URL) or an app's `request`; a failed call throws with its answer. */
export function apiCaller(request: (path: string, init: RequestInit) => Response | Promise<Response>): ApiCall {
  return async (key, path, json) => {
    const response = await request(path, { method: json === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
}

export interface DemoSizes {
  /** Calls left waiting for approval (a refund with one of its two approvals, then blog posts). */
  pending: number;
  /** Lookups and refunds (approved by two) in thread support-42. */
  auditedCalls: number;
  /** Manifest versions published; the last one is activated. */
  versions: number;
}

export async function seedDemo(api: ApiCall, sizes: DemoSizes): Promise<void> {
  const dispatch = async (thread_id: string, call_id: string, name: string, args: Record<string, unknown>) =>
    ((await api(DEMO_KEYS.agent, '/v1/dispatch', { thread_id, calls: [{ call_id, name, arguments: args }] })).results as Array<{ error?: { details: { approval_id: string } } }>)[0];
  for (let i = 1; i <= sizes.auditedCalls; i++) {
    await dispatch('support-42', `lookup_${i}`, 'echo', { text: `Customer asks about order ord_7f3k${i}a` });
    const parked = await dispatch('support-42', `refund_${i}`, 'refund_order', { text: `Refund ord_7f3k${i}a`, order_id: `ord_7f3k${i}a`, amount_eur: 129.9, card_token: 'tok_live_4242' });
    await api(DEMO_KEYS.bob, `/v1/approvals/${parked.error!.details.approval_id}`, { decision: 'approve', reason: 'Matches the ticket' });
    await api(DEMO_KEYS.alice, `/v1/approvals/${parked.error!.details.approval_id}`, { decision: 'approve' });
  }
  for (let i = 1; i <= sizes.pending; i++) {
    if (i === 1) {
      // Four eyes: one of the two approvals is in.
      const parked = await dispatch('support-43', 'call_1', 'refund_order', { text: 'Refund ord_9x1m0q', order_id: 'ord_9x1m0q', amount_eur: 2400, card_token: 'tok_live_1881' });
      await api(DEMO_KEYS.bob, `/v1/approvals/${parked.error!.details.approval_id}`, { decision: 'approve', reason: 'Customer called twice' });
    }
    else await dispatch(`blog-${i}`, 'call_1', 'publish_post', { text: `Spring release notes, part ${i}: faster sync, new export formats, and a calmer inbox.`, channel: 'blog', api_token: 'cms_live_secret' });
  }
  for (let version = 2; version <= sizes.versions; version++) await api(DEMO_KEYS.alice, '/v1/admin/manifests', demoManifest(version));
  if (sizes.versions >= 2) await api(DEMO_KEYS.alice, `/v1/admin/manifests/${sizes.versions}/activate`, {});
}
