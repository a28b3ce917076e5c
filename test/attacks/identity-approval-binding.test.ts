import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { previewArguments } from '../../lib/dispatch/approvals/notice.ts';
import type { Approval } from '../../lib/governance/approval.ts';
import { approvalKey } from '../../lib/governance/approvals.ts';
import { manifestKey, type PublishedManifest } from '../../lib/registry/manifest/manifest-store.ts';
import type { JsonObject } from '../../lib/registry/json.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import type { Store } from '../../lib/stores/store.ts';
import { LOOPBACK_EGRESS_ALLOW, testGateway } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest } from '../helpers/manifests.ts';
import { openDynamoDbStore } from '../support/dynalite.ts';
import { openSqliteStore, openUpstashStore } from '../support/store-fixtures.ts';

/**
 * An approval runs exactly the tool definition it was parked under. The attack: park a call of an
 * http tool under version q3 (`/tv-old`), then publish and activate q4 where the same tool calls
 * `/tv-new`, and approve. Before, `/tv-new` ran although reviewers were shown q3. Now q3's
 * definition runs (with today's secret grants and egress), or, where q3 or its tool is gone or
 * changed in the store, nothing runs and the result says why.
 */
const ORIGIN = 'http://localhost';
const SECRET_ENV = { ACME_HOOK_SECRET: 'hook-secret-value', TOOLGATE_TENANT_SECRETS: 'acme:ACME_HOOK_SECRET' };
const KEYS = {
  admin: { tenant: 'acme', principal: 'admin', scopes: ['admin'] },
  agent: { tenant: 'acme', principal: 'agent', scopes: [] },
  alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read'] },
};

let upstream: TestServer;
beforeAll(async () => {
  upstream = await startTestServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ran: new URL(request.url, 'http://x').pathname }));
  });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.requests.length = 0;
});

const tvTool = (path: string, extra: JsonObject = {}) => ({
  name: 'tv',
  description: 'Switches the TV channel.',
  tier: 'write',
  input_schema: { type: 'object', properties: { channel: { type: 'integer' } }, required: ['channel'], additionalProperties: false },
  executor: { kind: 'http', url: `${upstream.url}${path}`, secret: 'env:ACME_HOOK_SECRET', headers: { 'X-Hook-Token': 'env:ACME_HOOK_SECRET' } },
  ...extra,
});
const version = (v: string, path: string, extra: JsonObject = {}) => baseManifest({ tenant: 'acme', version: v, policy: { read: 'grant', write: 'review', execute: 'deny' }, tools: [tvTool(path, extra)] });
const paths = () => upstream.requests.map((r) => new URL(r.url, 'http://x').pathname);

type Gateway = Awaited<ReturnType<typeof testGateway>>;

async function publishAndActivate(gw: Gateway, manifest: ReturnType<typeof baseManifest>) {
  expect((await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest })).status).toBe(201);
  expect((await gw.request(`/v1/admin/manifests/${manifest.version}/activate`, { key: 'admin', method: 'POST' })).status).toBe(200);
}

/** A gateway over a fresh store with a call of `tv` parked under q3 (`/tv-old?api_key=…`), then q4 (`/tv-new`) active. */
async function parkedUnderQ3ThenQ4(store: Store = new MemoryStore()) {
  const gw = await testGateway([], KEYS, { store, manifestCacheMs: 0, env: SECRET_ENV });
  await publishAndActivate(gw, version('q3', '/tv-old?api_key=QUERY-TOKEN'));
  const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'living-room', calls: [{ call_id: 'c1', name: 'tv', arguments: { channel: 3 } }] } })).json();
  expect(parked.results[0].status).toBe('pending_approval');
  await publishAndActivate(gw, version('q4', '/tv-new'));
  return { gw, id: parked.results[0].error.details.approval_id as string };
}

const approve = async (gw: Gateway, id: string) => (await gw.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } })).json();
const storedApproval = async (gw: Gateway, id: string) => (await gw.store.get(approvalKey(id)))!.data as unknown as Approval;

/** Rewrites a stored manifest version in place, as someone with the store's credentials could. */
async function rewriteStoredVersion(gw: Gateway, v: string, change: (published: PublishedManifest) => PublishedManifest) {
  const record = (await gw.store.get(manifestKey('acme', v)))!;
  await gw.store.put(manifestKey('acme', v), { ...record, data: change(record.data as unknown as PublishedManifest) as unknown as JsonObject });
}

describe('attacks: an approval runs the definition it was parked under', () => {
  it('q3 parked, q4 activated, approved: q3 (/tv-old) runs, q4 (/tv-new) never does; the approval and audit say q3', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    const decided = await approve(gw, id);
    expect(decided.result).toMatchObject({ status: 'ok' });
    expect(JSON.parse(decided.result.content)).toEqual({ ran: '/tv-old' });
    expect(paths()).toEqual(['/tv-old']);
    // Today's secret still signs it, and q3's headers went with it.
    expect(upstream.requests[0].headers['x-hook-token']).toBe('hook-secret-value');
    expect(decided.approval).toMatchObject({ state: 'executed', manifest_version: 'q3', definition_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const audit = await (await gw.request('/v1/audit?thread_id=living-room', { key: 'alice' })).json();
    const result = audit.envelopes.findLast((e: { type: string }) => e.type === 'tool.call.result');
    expect(result).toMatchObject({ manifest_version: 'q3', data: { status: 'ok' } });
    const approvedEnvelope = audit.envelopes.findLast((e: { type: string }) => e.type === 'tool.call.approval');
    expect(approvedEnvelope).toMatchObject({ manifest_version: 'q3', data: { state: 'approved', definition_hash: decided.approval.definition_hash } });
  });

  it('reviewers are shown what will run: q3\'s endpoint with its query token masked, never the secret', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    const shown = await (await gw.request(`/v1/approvals/${id}`, { key: 'alice' })).json();
    expect(shown.target).toEqual({ kind: 'http', url: `${upstream.url}/tv-old?api_key=••••••`, summary: `POST ${upstream.url}/tv-old?api_key=•••••• (headers: X-Hook-Token)` });
    const signIn = await gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: 'credential=alice', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN } });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const page = await (await gw.app.request(`${ORIGIN}/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(page).toContain(`POST ${upstream.url}/tv-old?api_key=••••••`);
    expect(page).not.toContain('/tv-new');
    for (const secret of ['QUERY-TOKEN', 'hook-secret-value']) {
      expect(page).not.toContain(secret);
      expect(JSON.stringify(shown)).not.toContain(secret);
    }
  });

  it('the version removed from the store since: nothing runs; the result, the approval and the audit say why', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    expect(await gw.store.remove(manifestKey('acme', 'q3'), { state: 'published' })).toBe(true);
    const decided = await approve(gw, id);
    expect(decided.result).toMatchObject({ status: 'expired', is_error: true, error: { code: 'expired', details: { reason: 'version_removed', manifest_version: 'q3' } } });
    expect(decided.result.content).toMatch(/manifest version q3 it was parked under is no longer stored/);
    expect(paths()).toEqual([]);
    expect((await storedApproval(gw, id)).result).toMatchObject({ status: 'expired', is_error: true });
    const audit = await (await gw.request('/v1/audit?thread_id=living-room', { key: 'alice' })).json();
    expect(audit.envelopes.findLast((e: { type: string }) => e.type === 'tool.call.result')).toMatchObject({ manifest_version: 'q3', data: { status: 'expired', error: { code: 'expired' } } });
    // The agent's poll gets the same answer.
    const polled = await (await gw.request('/v1/calls/c1?thread_id=living-room', { key: 'agent' })).json();
    expect(polled.result).toMatchObject({ status: 'expired' });
  });

  it('the definition changed in the store under the same version id: nothing runs', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    await rewriteStoredVersion(gw, 'q3', (published) => ({ ...published, manifest: { ...published.manifest, tools: [tvTool('/tv-evil')] } as PublishedManifest['manifest'] }));
    const decided = await approve(gw, id);
    expect(decided.result).toMatchObject({ status: 'expired', error: { details: { reason: 'definition_changed' } } });
    expect(paths()).toEqual([]);
  });

  it('the tool dropped from the stored version: nothing runs', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    await rewriteStoredVersion(gw, 'q3', (published) => ({ ...published, manifest: { ...published.manifest, tools: [{ name: 'echo', executor: { kind: 'builtin' } }] } as PublishedManifest['manifest'] }));
    const decided = await approve(gw, id);
    expect(decided.result).toMatchObject({ status: 'expired', error: { details: { reason: 'tool_removed' } } });
    expect(paths()).toEqual([]);
  });

  it('the older version is validated by its own schema, not the active one', async () => {
    // q4 would accept channel as a string only: q3's integer still validates, as approved.
    const gw = await testGateway([], KEYS, { manifestCacheMs: 0, env: SECRET_ENV });
    await publishAndActivate(gw, version('q3', '/tv-old'));
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'c1', name: 'tv', arguments: { channel: 3 } }] } })).json();
    await publishAndActivate(gw, version('q4', '/tv-new', { input_schema: { type: 'object', properties: { channel: { type: 'string' } }, required: ['channel'] } }));
    const decided = await approve(gw, parked.results[0].error.details.approval_id);
    expect(decided.result).toMatchObject({ status: 'ok' });
    expect(paths()).toEqual(['/tv-old']);
  });

  it("an older version still goes through today's egress policy and secret grants: a revocation wins", async () => {
    for (const revoked of [{ TOOLGATE_EGRESS_ALLOW: '' }, { TOOLGATE_TENANT_SECRETS: '' }]) {
      upstream.requests.length = 0;
      const { gw, id } = await parkedUnderQ3ThenQ4();
      // The operator restarts the gateway with the grant or the egress exception taken away.
      const today = await testGateway([], {}, { store: gw.store, manifestCacheMs: 0, env: { ...SECRET_ENV, TOOLGATE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW, ...revoked } });
      const decided = await approve(today, id);
      expect(decided.result.is_error, JSON.stringify(revoked)).toBe(true);
      expect(decided.result.status).toMatch(/^(unavailable|error)$/);
      expect(paths(), JSON.stringify(revoked)).toEqual([]);
    }
  });

  it('an approval stored before definitions were bound runs the version it names, not the active one', async () => {
    const { gw, id } = await parkedUnderQ3ThenQ4();
    const record = (await gw.store.get(approvalKey(id)))!;
    const { definition_hash: _hash, target: _target, ...legacy } = record.data as unknown as Approval;
    await gw.store.put(approvalKey(id), { ...record, data: legacy as unknown as JsonObject });
    const decided = await approve(gw, id);
    expect(decided.result).toMatchObject({ status: 'ok' });
    expect(paths()).toEqual(['/tv-old']);
  });

  it("Slack's messages mask what the parked version marked sensitive, after a newer version dropped the tool", async () => {
    const gw = await testGateway([], KEYS, { manifestCacheMs: 0, env: SECRET_ENV });
    const sensitive = { input_schema: { type: 'object', properties: { channel: { type: 'integer' }, pin: { type: 'string', 'x-sensitive': true } }, required: ['channel'] } };
    await publishAndActivate(gw, version('q3', '/tv-old', sensitive));
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'c1', name: 'tv', arguments: { channel: 3, pin: 'PARENTAL-PIN' } }] } })).json();
    await publishAndActivate(gw, { ...version('q4', '/tv-new'), tools: [{ name: 'echo', executor: { kind: 'builtin' } }] } as ReturnType<typeof baseManifest>);
    const runtime = (await gw.tenants.runtime('acme'))!;
    const preview = await previewArguments(runtime.deps, await storedApproval(gw, parked.results[0].error.details.approval_id));
    expect(preview).toEqual({ channel: 3, pin: '••••••' });
  });

  it('the same version still active runs as before (no store read needed)', async () => {
    const gw = await testGateway([], KEYS, { store: new MemoryStore(), manifestCacheMs: 0, env: SECRET_ENV });
    await publishAndActivate(gw, version('q3', '/tv-old'));
    const parked = await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'c1', name: 'tv', arguments: { channel: 3 } }] } })).json();
    const decided = await approve(gw, parked.results[0].error.details.approval_id);
    expect(decided.result).toMatchObject({ status: 'ok' });
    expect(paths()).toEqual(['/tv-old']);
  });
});

describe('attacks: the bound approval on every durable store', () => {
  const stores = [['sqlite', openSqliteStore], ['upstash (redis-server)', openUpstashStore], ['dynamodb (dynalite)', openDynamoDbStore]] as const;
  for (const [name, open] of stores) {
    it(`${name}: the approval keeps its binding, and q3 runs after q4 was activated`, async () => {
      const running = await open();
      try {
        const { gw, id } = await parkedUnderQ3ThenQ4(running.store);
        const decided = await approve(gw, id);
        expect(JSON.parse(decided.result.content)).toEqual({ ran: '/tv-old' });
        expect(paths()).toEqual(['/tv-old']);
        expect(await storedApproval(gw, id)).toMatchObject({ state: 'executed', manifest_version: 'q3', definition_hash: decided.approval.definition_hash, target: { kind: 'http', url: `${upstream.url}/tv-old?api_key=••••••` } });
      } finally {
        await running.stop();
      }
    }, 60_000);
  }
});
