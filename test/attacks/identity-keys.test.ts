import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { StoreUnavailableError, type Store } from '../../lib/stores/store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Attacks on the key lifecycle: a revoked key, or one rotated past its grace, tried on every
 * surface that takes a key (/v1, /mcp, /mcp/<tenant>), and again while the store is down.
 */
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A memory store whose reads fail while `down` is set, as an unreachable Redis or DynamoDB would. */
function outageStore(): { store: Store; setDown(down: boolean): void } {
  const inner = new MemoryStore();
  let down = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'get' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => (down ? Promise.reject(new StoreUnavailableError('memory', new Error('connection refused'))) : value.apply(target, args));
    },
  });
  return { store, setDown: (value) => { down = value; } };
}

async function gateway(store?: Store) {
  return testGateway([validManifest({ tenant: 'acme', tools: [{ name: 'echo', executor: { kind: 'builtin' } }] })], { admin: { tenant: 'acme', principal: 'root', scopes: ['admin'] } }, store ? { store } : {});
}

type Gateway = Awaited<ReturnType<typeof gateway>>;
const surfaces = (gw: Gateway, key: string) => [
  gw.request('/v1/tools', { key }),
  gw.request('/mcp', { key, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: mcpHeaders }),
  gw.request('/mcp/acme', { key, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: mcpHeaders }),
];
const statuses = async (gw: Gateway, key: string) => Promise.all((await Promise.all(surfaces(gw, key))).map((r) => r.status));
const newKey = async (gw: Gateway) => (await (await gw.request('/v1/admin/keys', { key: 'admin', json: { principal: 'bot', scopes: [] } })).json()) as { key: string; id: string };

describe('attacks: retired keys', () => {
  it('a revoked key and a key rotated with no grace are refused on /v1, /mcp and /mcp/<tenant>', async () => {
    const gw = await gateway();
    const revoked = await newKey(gw);
    const rotated = await newKey(gw);
    expect(await statuses(gw, revoked.key)).toEqual([200, 200, 200]);
    expect(await statuses(gw, rotated.key)).toEqual([200, 200, 200]);
    expect((await gw.request(`/v1/admin/keys/${revoked.id}/revoke`, { key: 'admin', method: 'POST' })).status).toBe(200);
    const rotation = await gw.request(`/v1/admin/keys/${rotated.id}/rotate`, { key: 'admin', json: { grace_seconds: 0 } });
    expect(rotation.status).toBe(201);
    const replacement = (await rotation.json()).key as string;
    expect(await statuses(gw, revoked.key)).toEqual([401, 401, 401]);
    expect(await statuses(gw, rotated.key)).toEqual([401, 401, 401]);
    expect(await statuses(gw, replacement)).toEqual([200, 200, 200]);
  });

  it('a key revoked here stays refused while the store is down (503, never the stale grant)', async () => {
    const { store, setDown } = outageStore();
    const gw = await gateway(store);
    const made = await newKey(gw);
    expect(await statuses(gw, made.key)).toEqual([200, 200, 200]);
    expect((await gw.request(`/v1/admin/keys/${made.id}/revoke`, { key: 'admin', method: 'POST' })).status).toBe(200);
    setDown(true);
    expect(await statuses(gw, made.key)).toEqual([503, 503, 503]);
    setDown(false);
    expect(await statuses(gw, made.key)).toEqual([401, 401, 401]);
  });
});
