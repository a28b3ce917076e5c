import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { catalogManifest } from '../../bench/tool-search-corpus.ts';
import { createGateway } from '../../lib/http/gateway.ts';
import { manifestKey, manifestPartsPrefix } from '../../lib/registry/manifest/manifest-store.ts';
import type { StateRecord } from '../../lib/stores/store.ts';
import { testGateway } from '../helpers/gateway.ts';

/**
 * Attacks on publishing a large catalog: the publish route takes megabytes (its own limit, gzip),
 * so it must not take more than its limit by any road (a declared length, a chunked body, a small
 * gzip that inflates without end), must not hold anything for someone unauthenticated, and the
 * parts a version is stored in must never be served as another tenant's or version's manifest.
 */
const KEYS = { ops: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme', principal: 'agent' }, 'beta-ops': { tenant: 'beta', principal: 'ops', scopes: ['admin'] }, 'beta-agent': { tenant: 'beta', principal: 'agent' } };
const LIMIT = 600_000;
/** 300 real tools: about 390 KB of JSON, five parts. */
const catalog = (tenant: string, version: string) => catalogManifest(300, { tenant, version });

let gw: Awaited<ReturnType<typeof testGateway>>;
beforeEach(async () => {
  gw = await testGateway([], KEYS, { manifestBodyLimitBytes: LIMIT });
});

const publish = (body: BodyInit, headers: Record<string, string> = {}, key = 'ops') =>
  gw.request('/v1/admin/manifests', { key, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, duplex: 'half' } as RequestInit & { key: string });
const versions = async () => (await (await gw.request('/v1/admin/manifests', { key: 'ops' })).json()).versions;
const errorOf = async (response: Response) => ({ status: response.status, ...(await response.json()).error });

/** A body sent in chunks without a Content-Length (HTTP chunked): `chunks` of `size` bytes, or without end. */
function chunkedBody(size: number, chunks = Infinity): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}

describe('attacks: publishing a large catalog', () => {
  it('a gzip bomb (64 MiB of spaces in 64 KB) is refused once the limit has come out, and nothing is stored', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(LIMIT);
    expect(await errorOf(await publish(bomb, { 'content-encoding': 'gzip' }))).toEqual({ status: 413, code: 'payload_too_large', message: `the manifest once decompressed is larger than ${LIMIT} bytes: publish fewer tools per manifest, or ask the operator to raise TOOLGATE_MANIFEST_BODY_LIMIT_BYTES` });
    expect(await versions()).toEqual([]);
  });

  it('a manifest over the limit is a 413, declared or chunked; under it, the same route takes it', async () => {
    const over = JSON.stringify(catalogManifest(500, { tenant: 'acme', version: 'big' }));
    expect(over.length).toBeGreaterThan(LIMIT);
    const advice = 'publish fewer tools per manifest, or ask the operator to raise TOOLGATE_MANIFEST_BODY_LIMIT_BYTES';
    // Judged on its declared length before anything is read, or counted as it arrives.
    expect(await errorOf(await publish(over, { 'content-length': String(over.length) }))).toEqual({ status: 413, code: 'payload_too_large', message: `the manifest as sent is larger than ${LIMIT} bytes: ${advice}` });
    expect(await errorOf(await publish(over))).toEqual({ status: 413, code: 'payload_too_large', message: `the manifest as sent is larger than ${LIMIT} bytes: ${advice}` });
    expect(await errorOf(await publish(chunkedBody(64 * 1024, 20)))).toMatchObject({ status: 413, message: expect.stringMatching(/^the manifest as sent is larger than 600000 bytes/) });
    // Compressed below the limit, but not once decompressed.
    expect(await errorOf(await publish(gzipSync(over), { 'content-encoding': 'gzip' }))).toMatchObject({ status: 413, message: expect.stringMatching(/^the manifest once decompressed/) });
    expect((await publish(JSON.stringify(catalog('acme', 'ok')))).status).toBe(201);
    expect((await versions()).map((v: { version: string }) => v.version)).toEqual(['ok']);
  });

  it('other routes keep the 1 MiB limit; the manifest limit is bounded configuration', async () => {
    const plain = await testGateway([], KEYS);
    const dispatch = await plain.request('/v1/dispatch', { key: 'agent', method: 'POST', body: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expect(dispatch.status).toBe(413);
    expect(() => createGateway({ store: gw.store, env: { TOOLGATE_MANIFEST_BODY_LIMIT_BYTES: '32MB' } })).toThrow('TOOLGATE_MANIFEST_BODY_LIMIT_BYTES must be a positive number of bytes, got "32MB"');
    const fromEnv = await testGateway([], KEYS, { env: { TOOLGATE_MANIFEST_BODY_LIMIT_BYTES: '1000' } });
    const refused = await fromEnv.request('/v1/admin/manifests', { key: 'ops', method: 'POST', body: JSON.stringify(catalog('acme', 'x')), headers: { 'content-type': 'application/json' } });
    expect(await errorOf(refused)).toMatchObject({ status: 413, code: 'payload_too_large', message: expect.stringMatching(/^the manifest as sent is larger than 1000 bytes/) });
  });

  it('an unauthenticated or non-admin chunked body without end is answered without being read', async () => {
    const anonymous = await gw.app.request('/v1/admin/manifests', { method: 'POST', body: chunkedBody(64 * 1024), headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    expect(anonymous.status).toBe(401);
    expect((await publish(chunkedBody(64 * 1024), {}, 'agent')).status).toBe(403);
  });

  it('an encoding other than gzip is a 415, broken gzip a 400', async () => {
    expect(await errorOf(await publish('{}', { 'content-encoding': 'br' }))).toMatchObject({ status: 415, code: 'unsupported_encoding' });
    expect(await errorOf(await publish('not gzip at all', { 'content-encoding': 'gzip' }))).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/^the body could not be read as gzip/) });
  });
});

describe('attacks: the parts of a stored catalog', () => {
  async function publishBoth() {
    for (const [key, tenant] of [['ops', 'acme'], ['beta-ops', 'beta']]) {
      for (const version of ['1', '2']) {
        expect((await publish(JSON.stringify(catalog(tenant, version)), {}, key)).status).toBe(201);
      }
      expect((await gw.request('/v1/admin/manifests/1/activate', { key, method: 'POST' })).status).toBe(200);
    }
  }
  const head = async (tenant: string, version: string) => (await gw.store.get(manifestKey(tenant, version)))!;
  const partsOf = async (tenant: string, version: string) => {
    const record = await head(tenant, version);
    const prefix = manifestPartsPrefix(tenant, version, record.data.hash as string);
    return Promise.all(Array.from({ length: (record.data.parts as { parts: number }).parts }, async (_, i) => [`${prefix}/${i}`, (await gw.store.get(`${prefix}/${i}`))!] as [string, StateRecord]));
  };
  /** A new isolate's first call for the tenant (nothing cached). */
  const freshCall = async (key: string) => {
    const fresh = createGateway({ store: gw.store, env: {} });
    return fresh.fetch(new Request('http://gateway.test/v1/dispatch', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ thread_id: 't', calls: [{ name: 'acme_github_search_repositories', arguments: { query: 'q' } }] }) }));
  };

  it('is served whole from its parts', async () => {
    await publishBoth();
    expect((await partsOf('acme', '1')).length).toBeGreaterThan(1);
    expect(await (await freshCall('agent')).json()).toMatchObject({ manifest_version: '1', results: [{ status: 'ok' }] });
    // The lifecycle reads large versions as it reads small ones: diff, activate, roll back, list.
    const diff = await (await gw.request('/v1/admin/manifests/diff?from=1&to=2', { key: 'ops' })).json();
    expect(diff).toMatchObject({ from: '1', to: '2' });
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'ops', method: 'POST' })).status).toBe(200);
    expect(await (await freshCall('agent')).json()).toMatchObject({ manifest_version: '2', results: [{ status: 'ok' }] });
    expect(await (await gw.request('/v1/admin/manifests/rollback', { key: 'ops', method: 'POST' })).json()).toEqual({ from: '2', to: '1' });
    expect((await versions()).map((v: { version: string; active: boolean }) => [v.version, v.active])).toEqual([['1', true], ['2', false]]);
  });

  it("another tenant's parts copied over a tenant's own are refused, never served", async () => {
    await publishBoth();
    const [own, theirs] = [await partsOf('acme', '1'), await partsOf('beta', '1')];
    for (const [i, [key]] of own.entries()) await gw.store.put(key, theirs[i][1]);
    expect(await errorOf(await freshCall('agent'))).toMatchObject({ status: 503, code: 'unavailable', message: expect.stringMatching(/version 1 of tenant "acme" is damaged in the store: (part \d+ of \d+ has \d+ characters|its parts do not add up)/) });
  });

  it("another tenant's record and parts copied whole under a tenant's keys are refused: the manifest names its own tenant", async () => {
    await publishBoth();
    const theirs = await head('beta', '1');
    const prefix = manifestPartsPrefix('acme', '1', theirs.data.hash as string);
    for (const [i, [, record]] of (await partsOf('beta', '1')).entries()) await gw.store.put(`${prefix}/${i}`, record);
    await gw.store.put(manifestKey('acme', '1'), theirs);
    expect(await errorOf(await freshCall('agent'))).toMatchObject({ status: 503, message: expect.stringContaining('version 1 of tenant "acme" is damaged in the store: its record holds version 1 of tenant "beta"') });
  });

  it("another version's record under a version's key reads no parts of its own: refused", async () => {
    await publishBoth();
    await gw.store.put(manifestKey('acme', '1'), await head('acme', '2'));
    expect(await errorOf(await freshCall('agent'))).toMatchObject({ status: 503, message: expect.stringMatching(/version 1 of tenant "acme" is damaged in the store: part 1 of \d+ is missing/) });
    // A head that cannot be true (more parts than its length needs) is refused before any part is read.
    const own = await head('acme', '2');
    await gw.store.put(manifestKey('acme', '1'), { ...own, data: { ...own.data, parts: { ...(own.data.parts as object), parts: 9999 } } });
    expect(await errorOf(await freshCall('agent'))).toMatchObject({ status: 503, message: expect.stringContaining('version 1 of tenant "acme" is damaged in the store: its record does not say what its parts are') });
    // The other tenant is untouched.
    expect(await (await freshCall('beta-agent')).json()).toMatchObject({ manifest_version: '1', results: [{ status: 'ok' }] });
  });
});
