import { describe, expect, it } from 'vitest';
import type { ToolExecutor } from '../../lib/registry/executor.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { mortalStore, type DeathCondition } from '../helpers/mortal-store.ts';

/** Long enough for the checks made before the deadline to come before it on a loaded machine. */
const TIMEOUT_MS = 600;
/** With TOOLGATE_LEASE_GRACE_MS=0, past the deadline of a call started now. */
const PAST_DEADLINE_MS = TIMEOUT_MS + 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An approved call whose gateway stopped mid-way, seen through the HTTP API of the gateway that
 * replaced it (same store): the approvals routes and the call's poll settle it when they look.
 */
async function gateways(options: { when?: DeathCondition; hang?: boolean } = {}) {
  const raw = new MemoryStore();
  const dying = mortalStore(raw, options.when);
  const tools = [{ name: 'publish', tier: 'write', timeout_ms: TIMEOUT_MS, executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
  const manifest = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'review', execute: 'review' }, tools });
  const keys = { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } };
  const env = { TOOLGATE_LEASE_GRACE_MS: '0' };
  const first = await testGateway([manifest], keys, { store: dying.store, env });
  const runs = { count: 0 };
  const runtime = (await first.tenants.runtime('acme'))!;
  const publish = runtime.registry.get('publish')!;
  const counted: ToolExecutor = {
    ...publish,
    execute: async (args, context) => {
      runs.count++;
      if (!options.hang) return publish.execute(args, context);
      dying.die();
      return new Promise<never>(() => {});
    },
  };
  runtime.registry.register(counted, { replace: true });
  const restarted = await testGateway([manifest], {}, { store: raw, env });
  return { first, restarted, runs };
}

const json = async (response: Response) => ({ status: response.status, body: await response.json() });

describe('an approved call whose gateway stopped, seen through the API', () => {
  it('stopped after storing the result: looking at the approval makes it executed, with that result', async () => {
    const afterTheResult: DeathCondition = (method, args) => method === 'transition' && String(args[0]).startsWith('approval/') && (args[2] as { state: string }).state === 'executed';
    const { first, restarted, runs } = await gateways({ when: afterTheResult });
    const parked = (await json(await first.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: 'p1', name: 'publish', arguments: { text: 'hi' } }] } }))).body.results[0];
    const id = parked.error.details.approval_id as string;
    expect((await first.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } })).status).toBe(503);
    expect(runs.count).toBe(1);

    expect((await json(await restarted.request(`/v1/approvals/${id}`, { key: 'agent' }))).body).toMatchObject({ state: 'approved' });
    await sleep(PAST_DEADLINE_MS);
    expect((await json(await restarted.request(`/v1/approvals/${id}`, { key: 'agent' }))).body).toMatchObject({ state: 'executed', result: { status: 'ok', content: 'hi' } });
    expect((await json(await restarted.request('/v1/calls/p1?thread_id=t', { key: 'agent' }))).body).toMatchObject({ status: 'ok', result: { content: 'hi' } });
    expect(runs.count).toBe(1);
  });

  it('stopped mid-run: the poll answers indeterminate after the deadline; the approval is interrupted and cannot be decided again', async () => {
    const { first, restarted, runs } = await gateways({ hang: true });
    const parked = (await json(await first.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: 'p2', name: 'publish', arguments: { text: 'hi' } }] } }))).body.results[0];
    const id = parked.error.details.approval_id as string;
    const approving = Promise.resolve(first.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } }));
    while (runs.count === 0) await sleep(5);
    // While the approved call may still be running, the poll says so.
    expect((await json(await restarted.request('/v1/calls/p2?thread_id=t', { key: 'agent' }))).body).toMatchObject({ status: 'in_progress' });
    expect((await approving).status).toBe(503);
    await sleep(PAST_DEADLINE_MS);
    const polled = (await json(await restarted.request('/v1/calls/p2?thread_id=t', { key: 'agent' }))).body;
    expect(polled).toMatchObject({ status: 'indeterminate', result: { is_error: true, error: { code: 'indeterminate', details: { approval_id: id } } } });
    const listed = (await json(await restarted.request('/v1/approvals?state=interrupted', { key: 'alice' }))).body;
    expect(listed.approvals).toMatchObject([{ id, state: 'interrupted', decided_by: 'alice', result: { status: 'indeterminate' } }]);
    const again = await json(await restarted.request(`/v1/approvals/${id}`, { key: 'alice', json: { decision: 'approve' } }));
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'conflict', message: `approval "${id}" is already interrupted (by alice)` } } });
    expect(runs.count).toBe(1);
  });
});
