import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalGateway, type LocalGateway } from '../../lib/cli/serve.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Issue 22, finding 4: a key that approves its own calls through a key it mints. `npm start`'s
 * demo key was the agent's and held `admin` and `approvals:decide`: one POST /v1/admin/keys gave a
 * second principal that approved every parked call of the first. Now the agent's key holds no
 * operator scope, a key never gets a scope its creator lacks, and a minted key is the same person
 * as the keys that minted it, whichever way round, through a chain of mints.
 */
describe('attacks: npm start\'s agent key mints an approver', () => {
  let scratch: string;
  let gateway: LocalGateway;
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'toolgate-mint-'));
    gateway = await startLocalGateway({ port: 0, dataDir: join(scratch, '.toolgate'), quiet: true, env: { PATH: process.env.PATH, TOOLGATE_WORKSPACE: join(scratch, 'workspace'), TOOLGATE_EXEC_PORT: '0' } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const call = async (key: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('cannot mint a key, so nothing it makes approves its parked call; the demo admin key does', async () => {
    const parked = await call(gateway.demoKey, '/v1/dispatch', { thread_id: 'mint', calls: [{ call_id: 'w1', name: 'write_file', arguments: { file_path: 'minted.txt', content: 'approved by myself\n' } }] });
    const approvalId = parked.body.results[0].error.details.approval_id as string;
    const minted = await call(gateway.demoKey, '/v1/admin/keys', { principal: 'helper', scopes: ['approvals:decide'] });
    expect(minted.status).toBe(403);
    expect(minted.body.error.message).toContain('"admin"');
    expect((await call(gateway.demoKey, `/v1/approvals/${approvalId}`, { decision: 'approve' })).status).toBe(403);
    expect((await call(gateway.demoKey, '/v1/approvals?state=pending')).status).toBe(403);
    expect((await call(gateway.demoKey, '/v1/audit?thread_id=mint')).status).toBe(403);
    // The operator's key approves (the README's walkthrough), and no key was minted by the agent.
    const approved = await call(gateway.demoAdminKey, `/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect(approved.body.approval).toMatchObject({ state: 'executed', decided_by: 'demo-admin', requested_by: 'demo-user' });
    const keys = (await call(gateway.demoAdminKey, '/v1/admin/keys')).body.keys as Array<{ principal: string }>;
    expect(keys.map((k) => k.principal).sort()).toEqual(['demo-admin', 'demo-user']);
  });
});

describe('attacks: a key that both calls tools and approves mints a second approver', () => {
  let gw: Awaited<ReturnType<typeof testGateway>>;
  const tools = [{ name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }, { name: 'deploy', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, approvals: { quorum: 2 } }];
  const tenant = (name: string, approvals: Record<string, unknown> = {}) => validManifest({ tenant: name, policy: { read: 'grant', write: 'review', execute: 'deny' }, tools, approvals });
  // Each tenant's "everything" key is what npm start's demo key was: the agent's, with admin and approvals:decide.
  const everything = { principal: 'ops-agent', scopes: ['admin', 'approvals:decide', 'audit:read'] };
  beforeAll(async () => {
    gw = await testGateway([tenant('acme'), tenant('strict', { same_person_as_creator: true }), tenant('lax', { same_person_as_creator: false })], {
      acme: { tenant: 'acme', ...everything },
      strict: { tenant: 'strict', ...everything },
      lax: { tenant: 'lax', ...everything },
      'acme-agent': { tenant: 'acme', principal: 'agent', scopes: [] },
      'acme-alice': { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] },
      'acme-operator': { tenant: 'acme', principal: 'operator', scopes: ['admin', 'approvals:decide'] },
    });
  });

  const mint = async (by: string, principal: string, scopes = ['approvals:decide']) => {
    const response = await gw.request('/v1/admin/keys', { key: by, json: { principal, scopes } });
    expect(response.status, `${by} mints ${principal}`).toBe(201);
    return ((await response.json()) as { key: string }).key;
  };
  const park = async (key: string, callId: string, tool = 'publish') => {
    const body = await (await gw.request('/v1/dispatch', { key, json: { thread_id: 'mint', calls: [{ call_id: callId, name: tool, arguments: { text: callId } }] } })).json();
    expect(body.results[0].status).toBe('pending_approval');
    return body.results[0].error.details.approval_id as string;
  };
  const decide = async (key: string, id: string) => gw.request(`/v1/approvals/${id}`, { key, json: { decision: 'approve' } });
  const state = async (id: string, key: string) => (await (await gw.request(`/v1/approvals/${id}`, { key })).json()).state;

  it('the minted key cannot approve its minter\'s call, nor the minter the minted key\'s, nor a chain of mints', async () => {
    const helper = await mint('acme', 'helper', ['admin', 'approvals:decide']);
    const grandchild = await mint(helper, 'grandchild');
    const mine = await park('acme', 'mine');
    for (const approver of [helper, grandchild]) {
      const refused = await decide(approver, mine);
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.message).toContain('minted');
    }
    const helpers = await park(helper, 'helpers');
    expect((await decide('acme', helpers)).status).toBe(403);
    expect((await decide(grandchild, helpers)).status).toBe(403);
    expect(await state(mine, 'acme')).toBe('pending');
    // Another person decides both.
    expect((await (await decide('acme-alice', mine)).json()).approval.state).toBe('executed');
    expect((await (await decide('acme-alice', helpers)).json()).approval.state).toBe('executed');
  });

  it('a deep chain of mints does not forget its root: the 64th key still counts as it, and a 65th is refused', async () => {
    let key = 'acme';
    for (let depth = 1; depth <= 64; depth++) key = await mint(key, `deep-${depth}`, ['admin', 'approvals:decide']);
    const refused = await gw.request('/v1/admin/keys', { key, json: { principal: 'deep-65', scopes: [] } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toContain('more than 64 principals');
    expect((await decide(key, await park('acme', 'deep-root'))).status).toBe(403);
    expect((await decide('acme', await park(key, 'deep-leaf'))).status).toBe(403);
  });

  it('a minter and its minted key count once in a quorum', async () => {
    const helper = await mint('acme', 'quorum-helper');
    const id = await park('acme-agent', 'quorum', 'deploy');
    expect((await decide('acme', id)).status).toBe(200);
    const again = await decide(helper, id);
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe('already_decided');
    expect(await state(id, 'acme')).toBe('pending');
    expect((await (await decide('acme-alice', id)).json()).approval.state).toBe('executed');
  });

  it('by default keys an operator minted for two people are two people; with same_person_as_creator true they are one', async () => {
    const bot = await mint('acme-operator', 'bot', []);
    const reviewer = await mint('acme-operator', 'reviewer');
    expect((await (await decide(reviewer, await park(bot, 'sibling'))).json()).approval.state).toBe('executed');
    const strictBot = await mint('strict', 'bot', []);
    const strictReviewer = await mint('strict', 'reviewer');
    expect((await decide(strictReviewer, await park(strictBot, 'strict-sibling'))).status).toBe(403);
  });

  it('with same_person_as_creator false the tenant compares names only', async () => {
    const helper = await mint('lax', 'helper');
    expect((await (await decide(helper, await park('lax', 'lax'))).json()).approval.state).toBe('executed');
  });

  it('a key cannot get a scope its creator lacks, by creation or by rotation', async () => {
    const agentAdmin = await mint('acme-operator', 'agent-admin', ['admin']);
    const refused = await gw.request('/v1/admin/keys', { key: agentAdmin, json: { principal: 'approver', scopes: ['approvals:decide'] } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toContain('"approvals:decide"');
    const alices = (await (await gw.request('/v1/admin/keys?limit=200', { key: 'acme-operator' })).json()).keys.find((k: { principal: string }) => k.principal === 'alice');
    const rotation = await gw.request(`/v1/admin/keys/${alices.id}/rotate`, { key: agentAdmin, json: { grace_seconds: 0 } });
    expect(rotation.status).toBe(403);
    expect((await gw.request('/v1/audit?thread_id=mint', { key: 'acme-alice' })).status).toBe(403);
  });

  it('minting is audited: the creator, its key and scopes, the new principal and its scopes', async () => {
    await mint('acme', 'audited', ['approvals:decide']);
    const envelopes = (await (await gw.request('/v1/audit?thread_id=_keys&limit=200', { key: 'acme' })).json()).envelopes as Array<{ type: string; principal: string; data: Record<string, unknown> }>;
    const created = envelopes.find((e) => e.type === 'key.created' && e.data.principal === 'audited');
    expect(created).toMatchObject({ principal: 'ops-agent', data: { created_by: 'ops-agent', created_by_key: expect.stringMatching(/^key_/), creator_scopes: everything.scopes, scopes: ['approvals:decide'], lineage: ['ops-agent'] } });
  });
});
