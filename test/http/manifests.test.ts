import { beforeEach, describe, expect, it } from 'vitest';
import { verifyChain } from '../../lib/audit/verify.ts';
import { MANIFEST_THREAD } from '../../lib/registry/manifest/manifest-store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const v = (version: string, tools: unknown[]) => baseManifest({ tenant: 'acme', version, tools });
const echo = { name: 'echo', executor: { kind: 'builtin' } };
const slow = { name: 'slow', executor: { kind: 'builtin', name: 'sleep' }, timeout_ms: 5000 };

let gw: Awaited<ReturnType<typeof testGateway>>;
beforeEach(async () => {
  gw = await testGateway([v('1', [echo, slow])], { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin', 'audit:read'] }, agent: { tenant: 'acme' }, other: { tenant: 'beta', scopes: ['admin'] } }, { manifestCacheMs: 100 });
});

const admin = (path: string, json?: unknown, key = 'admin') => gw.request(`/v1/admin${path}`, { key, ...(json === undefined ? { method: path.endsWith('/activate') || path.endsWith('/rollback') ? 'POST' : 'GET' } : { json }) });
const toolNames = async () => ((await (await gw.request('/v1/tools', { key: 'agent' })).json()).tools as Array<{ name: string }>).map((t) => t.name);

describe('manifest lifecycle', () => {
  it('publishes immutable versions: the same content again is a no-op, other content a conflict', async () => {
    const first = await admin('/manifests', v('2', [echo]));
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ status: 'published', version: '2', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const again = await admin('/manifests', v('2', [echo]));
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe('unchanged');
    const changed = await admin('/manifests', v('2', [echo, slow]));
    expect(changed.status).toBe(409);
    expect((await changed.json()).error.message).toBe('version 2 of tenant "acme" is already published with other content; versions are immutable: publish under a new version');
  });

  it('refuses a broken manifest with every problem, and another tenant with 404', async () => {
    const broken = await admin('/manifests', { ...v('3', [{ name: 'x', executor: { kind: 'grpc' } }]) });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.problems).toEqual([{ path: '$.tools[0].executor.kind', message: 'unknown executor kind "grpc" (known: builtin, http, mcp, client)' }]);
    expect((await admin('/manifests', { ...v('3', [echo]), tenant: 'beta' })).status).toBe(404);
    expect((await admin('/manifests', v('3', [echo]), 'agent')).status).toBe(403);
  });

  it('activation is served without a restart; rollback returns to the previous version', async () => {
    expect(await toolNames()).toEqual(['echo', 'slow']);
    await admin('/manifests', v('2', [echo]));
    expect(await toolNames()).toEqual(['echo', 'slow']);
    const activated = await admin('/manifests/2/activate');
    expect(await activated.json()).toEqual({ from: '1', to: '2' });
    expect(await toolNames()).toEqual(['echo']);
    const rolled = await admin('/manifests/rollback');
    expect(await rolled.json()).toEqual({ from: '2', to: '1' });
    expect(await toolNames()).toEqual(['echo', 'slow']);
    expect((await admin('/manifests/rollback')).status).toBe(404);
    expect((await admin('/manifests/9/activate')).status).toBe(404);
  });

  it('another isolate (its own cache) serves the new version within its cache time', async () => {
    const other = await testGateway([], {}, { store: gw.store, manifestCacheMs: 100 });
    await other.tenants.runtime('acme');
    await admin('/manifests', v('2', [echo]));
    await admin('/manifests/2/activate');
    expect((await other.tenants.runtime('acme'))?.manifest.version).toBe('1');
    await new Promise((r) => setTimeout(r, 150));
    expect((await other.tenants.runtime('acme'))?.manifest.version).toBe('2');
  });

  it('a call in flight finishes on the version it started with, and the audit records it', async () => {
    await admin('/manifests', v('2', [echo]));
    const inFlight = gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'flight', calls: [{ call_id: 's', name: 'slow', arguments: { ms: 300 } }] } });
    await new Promise((r) => setTimeout(r, 50));
    await admin('/manifests/2/activate');
    const finished = await (await inFlight).json();
    expect(finished).toMatchObject({ manifest_version: '1', results: [{ status: 'ok', content: 'slept 300 ms' }] });
    const after = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'flight', calls: [{ call_id: 't', name: 'slow', arguments: { ms: 1 } }] } })).json();
    expect(after).toMatchObject({ manifest_version: '2', results: [{ status: 'unknown_tool' }] });
    const audit = await (await gw.request('/v1/audit?thread_id=flight', { key: 'admin' })).json();
    expect(audit.envelopes.map((e: { manifest_version: string }) => e.manifest_version)).toEqual(['1', '1', '1', '2', '2', '2']);
  });

  it('lists versions with the active one, diffs two versions, and audits every step', async () => {
    await admin('/manifests', v('2', [{ ...echo, tags: ['x'] }, { name: 'nap', executor: { kind: 'builtin', name: 'sleep' } }]));
    await admin('/manifests/2/activate');
    const listed = await (await admin('/manifests')).json();
    expect(listed).toMatchObject({ tenant: 'acme', active: '2' });
    expect(listed.versions.map((x: { version: string; active: boolean }) => [x.version, x.active])).toEqual([['1', false], ['2', true]]);
    const diff = await (await admin('/manifests/diff?from=1&to=2')).json();
    expect(diff).toEqual({ from: '1', to: '2', added: ['nap'], removed: ['slow'], changed: [{ name: 'echo', fields: ['tags'], changes: [{ path: 'tags', to: ['x'] }] }], settings: [], setting_changes: [] });
    const audit = await (await gw.request(`/v1/audit?thread_id=${MANIFEST_THREAD}`, { key: 'admin' })).json();
    expect(audit.envelopes.map((e: { type: string; principal: string }) => `${e.type} by ${e.principal}`)).toEqual([
      'manifest.published by deployment',
      'manifest.activated by deployment',
      'manifest.published by ops',
      'manifest.activated by ops',
    ]);
    expect(audit.envelopes[3].data).toEqual({ from: '1', to: '2', rollback: false });
    expect((await verifyChain(audit.envelopes)).ok).toBe(true);
  });

  it("keeps tenants apart: another tenant's admin sees none of acme's versions", async () => {
    const listed = await (await admin('/manifests', undefined, 'other')).json();
    expect(listed).toEqual({ tenant: 'beta', active: null, versions: [] });
    expect((await admin('/manifests/1', undefined, 'other')).status).toBe(404);
  });
});

describe('publishing manifests with MCP imports', () => {
  it('refuses imports that are not pinned yet, saying how to pin them', async () => {
    const manifest = { ...v('5', [echo]), mcp_imports: [{ server: 'crm', url: 'https://crm.example.com/mcp', tools: 'all' }] };
    const response = await admin('/manifests', manifest);
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe('mcp_imports "crm" have no pinned tools: pin them with `toolgate manifest import-mcp` (or publish with `toolgate manifest publish`, which pins first)');
  });
});
