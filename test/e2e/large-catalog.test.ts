import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogManifest } from '../../bench/tool-search-corpus.ts';
import { createApiKey } from '../../lib/governance/api-keys.ts';
import { createGateway } from '../../lib/http/gateway.ts';
import { manifestKey, manifestPartsPrefix } from '../../lib/registry/manifest/manifest-store.ts';
import type { Store } from '../../lib/stores/store.ts';
import { PART_CHARS } from '../../lib/stores/text-parts.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore, type RunningStore } from '../support/store-fixtures.ts';

/**
 * A 10,000-tool catalog (the tool search bench's: real MCP servers' tool definitions, about
 * 13 MB of JSON) published as a user would, over HTTP and gzip-compressed, on every remote or
 * durable store: it is stored in parts (no record larger than a DynamoDB item may be), activated,
 * searched and called from a new isolate that reads it back whole; a part cut short is refused
 * with a clear error, never served as half a manifest.
 */
const STORES: Array<[string, () => Promise<RunningStore>]> = [
  ['sqlite', openSqliteStore],
  ['upstash (redis-server)', openUpstashStore],
  ['dynamodb (dynalite)', openDynamoDbStore],
];

const TOOLS = 10_000;
const manifest = catalogManifest(TOOLS, { tenant: 'acme', version: 'catalog-1' });
const gzipped = gzipSync(JSON.stringify(manifest));

async function gatewayOver(store: Store) {
  const gateway = createGateway({ store, env: {} });
  await gateway.ready;
  return (path: string, init: RequestInit & { key: string }) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${init.key}`);
    return gateway.fetch(new Request(`http://gateway.test${path}`, { ...init, headers }));
  };
}

const dispatchBody = (name: string) => JSON.stringify({ thread_id: 't', calls: [{ call_id: 'c1', name, arguments: { query: 'machine learning' } }] });
const post = (body?: BodyInit, headers: Record<string, string> = {}) => ({ method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe.each(STORES)('a 10,000-tool catalog on %s', (_name, open) => {
  let running: RunningStore;

  beforeAll(async () => {
    running = await open();
    await createApiKey(running.store, { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, 'ops-key');
    await createApiKey(running.store, { tenant: 'acme', principal: 'agent', scopes: [] }, 'agent-key');
  });
  afterAll(async () => running?.stop());

  it('publishes over HTTP (gzip) in parts, activates, searches and calls one tool from a new isolate', async () => {
    const request = await gatewayOver(running.store);
    const published = await request('/v1/admin/manifests', { key: 'ops-key', ...post(gzipped, { 'content-encoding': 'gzip' }) });
    expect(published.status).toBe(201);
    expect(await published.json()).toMatchObject({ status: 'published', version: 'catalog-1' });

    // The version's record holds the head of its parts, not the manifest; every part fits a DynamoDB item.
    const head = (await running.store.get(manifestKey('acme', 'catalog-1')))!.data;
    expect(head.manifest).toBeUndefined();
    const parts = head.parts as { parts: number; chars: number };
    expect(parts.parts).toBe(Math.ceil(JSON.stringify(manifest).length / PART_CHARS));
    expect(parts.parts).toBeGreaterThan(100);

    expect((await request('/v1/admin/manifests/catalog-1/activate', { key: 'ops-key', method: 'POST' })).status).toBe(200);
    const listed = await (await request('/v1/admin/manifests', { key: 'ops-key' })).json();
    expect(listed).toMatchObject({ active: 'catalog-1', versions: [{ version: 'catalog-1', active: true }] });

    // A new isolate: nothing cached, the manifest read back from its parts.
    const fresh = await gatewayOver(running.store);
    const found = await (await fresh('/v1/tools?q=find+GitHub+repositories+about+machine+learning&tag=wayne&limit=3', { key: 'agent-key' })).json();
    expect(found.tools[0].name).toBe('wayne_github_search_repositories');
    const called = await (await fresh('/v1/dispatch', { key: 'agent-key', ...post(dispatchBody(found.tools[0].name)) })).json();
    expect(called).toMatchObject({ manifest_version: 'catalog-1', results: [{ call_id: 'c1', status: 'ok' }] });

    // The whole manifest reads back as published.
    const whole = await (await request('/v1/admin/manifests/catalog-1', { key: 'ops-key' })).json();
    expect(whole.manifest.tools).toHaveLength(TOOLS);
    expect(whole.manifest).toEqual(manifest);
  });

  it('refuses a version with a part cut short: a clear 503 on dispatch and on activation, never half a manifest', async () => {
    const hash = ((await running.store.get(manifestKey('acme', 'catalog-1')))!.data.hash as string);
    const key = `${manifestPartsPrefix('acme', 'catalog-1', hash)}/7`;
    const part = (await running.store.get(key))!;
    await running.store.put(key, { ...part, data: { text: (part.data.text as string).slice(0, 1000) } });

    const fresh = await gatewayOver(running.store);
    const called = await fresh('/v1/dispatch', { key: 'agent-key', ...post(dispatchBody('wayne_github_search_repositories')) });
    expect(called.status).toBe(503);
    const body = await called.json();
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toMatch(/version catalog-1 of tenant "acme" is damaged in the store: part 8 of \d+ has 1000 characters, not 90000/);
    const activated = await fresh('/v1/admin/manifests/catalog-1/activate', { key: 'ops-key', method: 'POST' });
    expect(activated.status).toBe(503);
    // Listing reads no parts: the version is still listed.
    expect((await fresh('/v1/admin/manifests', { key: 'ops-key' })).status).toBe(200);
  });
});
