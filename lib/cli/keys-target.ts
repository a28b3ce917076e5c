import { resolve } from 'node:path';
import { ApiKeyLifecycle, DEFAULT_GRACE_SECONDS, KeyLifecycleError, type ApiKeyInfo } from '../governance/key-lifecycle.ts';
import { fetchGateway } from './gateway-fetch.ts';
import { nodeStoreFromEnv } from './node-store.ts';

/** What `toolgate keys` acts on: a gateway's admin routes, or (with --tenant) the store itself. */
export interface KeysTarget {
  /** Where, for messages. */
  readonly where: string;
  /** How soon a revocation made here holds where. */
  readonly revocation: string;
  create(request: { principal: string; scopes: string[]; expires_in_seconds?: number }): Promise<{ key: string; info: ApiKeyInfo }>;
  list(page: { cursor?: string; limit: number }): Promise<{ keys: ApiKeyInfo[]; next?: string }>;
  revoke(id: string): Promise<ApiKeyInfo>;
  rotate(id: string, graceSeconds: number | undefined): Promise<{ key: string; info: ApiKeyInfo; previous: ApiKeyInfo }>;
  close(): Promise<void>;
}

/** A refusal to show the user as it is (the gateway's or the lifecycle's message). */
export class KeysCommandError extends Error {}

/** Through POST/GET /v1/admin/keys with an admin key: the key's own tenant. */
export function gatewayTarget(url: string, adminKey: string): KeysTarget {
  const base = `${url.replace(/\/+$/, '')}/v1/admin/keys`;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetchGateway(url, `${base}${path}`, { method, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new KeysCommandError(`${url} answered ${response.status} with something that is not JSON`);
    }
    if (!response.ok) throw new KeysCommandError(`${url} answered ${response.status}: ${(parsed.error as { message?: string } | undefined)?.message ?? 'no message'}`);
    return parsed;
  };
  const keyAndInfo = (body: Record<string, unknown>) => {
    const { key, note: _note, previous: _previous, ...info } = body;
    return { key: String(key), info: info as unknown as ApiKeyInfo };
  };
  return {
    where: url,
    revocation: 'refused at once by the gateway process that revoked it, by its other processes within 60 seconds (their key cache)',
    async create(request) {
      return keyAndInfo(await call('POST', '', request));
    },
    async list(page) {
      const query = new URLSearchParams({ limit: String(page.limit), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) });
      const body = await call('GET', `?${query}`);
      return { keys: body.keys as ApiKeyInfo[], ...(typeof body.next_cursor === 'string' ? { next: body.next_cursor } : {}) };
    },
    async revoke(id) {
      const { note: _note, ...info } = await call('POST', `/${encodeURIComponent(id)}/revoke`);
      return info as unknown as ApiKeyInfo;
    },
    async rotate(id, graceSeconds) {
      const body = await call('POST', `/${encodeURIComponent(id)}/rotate`, graceSeconds === undefined ? {} : { grace_seconds: graceSeconds });
      return { ...keyAndInfo(body), previous: body.previous as ApiKeyInfo };
    },
    async close() {},
  };
}

/**
 * Straight on the store (TOOLGATE_STORE; default the SQLite file under TOOLGATE_DATA_DIR or
 * .toolgate): for bootstrapping a tenant's first admin key, or recovering when no admin key is
 * left. Running gateways notice a revocation made here within their key cache's 60 seconds.
 */
export function storeTarget(tenant: string, env: NodeJS.ProcessEnv): KeysTarget {
  const store = nodeStoreFromEnv(env, resolve(env.TOOLGATE_DATA_DIR ?? '.toolgate'));
  const lifecycle = new ApiKeyLifecycle(store);
  // The operator: it owns the store, so the keys it makes may hold any scope (and join no lineage).
  const by = { operator: `cli${env.USER && /^[\w.@-]{1,60}$/.test(env.USER) ? `:${env.USER}` : ''}` };
  const explained = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof KeyLifecycleError ? new KeysCommandError(error.message) : error;
    }
  };
  return {
    where: `the store (tenant "${tenant}")`,
    revocation: 'running gateways refuse it within 60 seconds (their key cache)',
    create: (request) => explained(() => lifecycle.create(tenant, request, by)),
    list: (page) => explained(() => lifecycle.list(tenant, { after: page.cursor, limit: page.limit })),
    revoke: (id) => explained(() => lifecycle.revoke(tenant, id, by.operator)),
    rotate: (id, graceSeconds) => explained(() => lifecycle.rotate(tenant, id, by, { grace_seconds: graceSeconds ?? DEFAULT_GRACE_SECONDS })),
    close: () => store.close(),
  };
}
