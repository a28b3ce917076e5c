import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandShares, type NoSlot } from '../../lib/exec/command-shares.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import type { PolicyConfig } from '../../lib/governance/policy.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { bubblewrapSandbox, makeSandbox, waitUntil, type Sandbox } from './helpers.ts';

const SECRET = 'command-shares-secret-0123456789abcdef0123';

type Taken = ReturnType<CommandShares['tryTake']>;
const granted = (taken: Taken): taken is () => void => typeof taken === 'function';

describe('CommandShares: each tenant is guaranteed floor(max / tenants) slots, more only while the others keep theirs', () => {
  it('one tenant (or none named) has every slot', () => {
    const shares = new CommandShares(3, ['solo']);
    expect([1, 2, 3].map(() => granted(shares.tryTake('solo', 1_000)))).toEqual([true, true, true]);
    expect(shares.tryTake('solo', 1_000)).toEqual({ reason: 'full', running: 3, soonestEnd: 1_000 });
    const local = new CommandShares(2, []);
    expect([granted(local.tryTake('', 5)), granted(local.tryTake('', 6)), granted(local.tryTake('', 7))]).toEqual([true, true, false]);
  });

  it('two tenants, 4 slots: each runs 2 whatever the other does, and hears when its own soonest ends', () => {
    const shares = new CommandShares(4, ['a', 'b']);
    expect(shares.guaranteed).toBe(2);
    expect([granted(shares.tryTake('a', 300)), granted(shares.tryTake('a', 200))]).toEqual([true, true]);
    expect(shares.tryTake('a', 100)).toEqual<NoSlot>({ reason: 'share', running: 2, soonestEnd: 200 });
    expect([granted(shares.tryTake('b', 900)), granted(shares.tryTake('b', 900))]).toEqual([true, true]);
    expect(shares.tryTake('b', 100)).toEqual<NoSlot>({ reason: 'full', running: 4, soonestEnd: 200 });
  });

  it('three tenants, 4 slots: one each, and the fourth to whoever asks first; a released slot is free again once', () => {
    const shares = new CommandShares(4, ['a', 'b', 'c']);
    expect(shares.guaranteed).toBe(1);
    const a1 = shares.tryTake('a', 10);
    expect(granted(a1) && granted(shares.tryTake('a', 20))).toBe(true);
    expect(shares.tryTake('a', 30)).toMatchObject({ reason: 'share', running: 2, soonestEnd: 10 });
    expect(granted(shares.tryTake('b', 40))).toBe(true);
    // b beyond its one: the last free slot is c's guarantee.
    expect(shares.tryTake('b', 50)).toMatchObject({ reason: 'share', running: 1 });
    expect(granted(shares.tryTake('c', 60))).toBe(true);
    if (!granted(a1)) throw new Error('unreachable');
    a1();
    a1();
    expect(shares.taken).toBe(3);
    // Each holds its one; the fourth goes to whoever asks first, now c.
    expect(granted(shares.tryTake('c', 70))).toBe(true);
    expect(shares.tryTake('a', 80)).toMatchObject({ reason: 'full', running: 4 });
  });

  it('more tenants than slots: at most one each, first come', () => {
    const shares = new CommandShares(2, ['a', 'b', 'c']);
    expect(granted(shares.tryTake('a', 1))).toBe(true);
    expect(shares.tryTake('a', 1)).toMatchObject({ reason: 'share' });
    expect(granted(shares.tryTake('b', 2))).toBe(true);
    expect(shares.tryTake('c', 3)).toMatchObject({ reason: 'full', running: 2 });
  });
});

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

/** Waits in the workspace until the test creates `release`. */
const heldUntilReleased = (marker: string) => `touch ${marker}; while [ ! -e release ]; do sleep 0.05; done; echo done`;

type Results = { results: Array<{ call_id: string; status: string; content: string; error?: { details?: { approval_id?: string } } }> };

/**
 * Issue 22, finding 2: five granted calls asking for timeout_ms 600000 (a `tail +1f greet.sh`
 * then; any long granted command does the same) took every command slot, and every granted
 * command of every tenant served by that exec-server answered `unavailable: busy` for up to 10
 * minutes, with no human involved. Now a command granted without a human runs at most 30 s (the
 * granting rule may say otherwise; the model's timeout_ms cannot), each tenant keeps its share of
 * the slots, and a busy answer says when a slot frees up at the latest.
 */
describe('attack: one tenant\'s long granted commands hold the exec-server for every tenant', () => {
  async function setup(tenants: Record<string, PolicyConfig>, maxCommands: number) {
    const names = Object.keys(tenants);
    const commands = await bubblewrapSandbox({ maxCommands, tenants: names });
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: names, port: 0, sandbox: commands });
    const environment = { url: server.url, secret: 'env:EXEC_SECRET' };
    const manifests = Object.entries(tenants).map(([tenant, policy]) => validManifest({ tenant, profile: 'openai', policy, execution_environment: environment, tools: [] }));
    const keys = Object.fromEntries(names.flatMap((tenant) => [[tenant, { tenant }], [`${tenant}-approver`, { tenant, principal: 'alice', scopes: ['approvals:decide'] }]]));
    const gw = await testGateway(manifests, keys, { env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: names.map((name) => `${name}:EXEC_SECRET`).join(';') } });
    const dispatch = async (key: string, thread_id: string, calls: Array<{ call_id: string; command: string; timeout_ms?: number }>) => {
      const json = { thread_id, parallel: true, calls: calls.map(({ call_id, command, timeout_ms }) => ({ call_id, name: 'shell', arguments: timeout_ms === undefined ? { command } : { command, timeout_ms } })) };
      return (await (await gw.request('/v1/dispatch', { key, json })).json()) as Results;
    };
    const close = async () => {
      await server.close();
      await commands.close();
    };
    return { server, gw, dispatch, close };
  }

  it('tenant a (its tier grants every command) holds its share only; tenant b still runs; the busy answer names a wait of at most 30 s', async () => {
    const { server, dispatch, close } = await setup({ a: { execute: 'grant' }, b: { execute: 'grant' } }, 2);
    try {
      const flood = [0, 1, 2, 3, 4].map((i) => ({ call_id: `a${i}`, command: heldUntilReleased(`a-ran-${i}`), timeout_ms: 600_000 }));
      const flooding = dispatch('a', 'flood', flood);
      expect(await waitUntil(() => [0, 1, 2, 3, 4].some((i) => existsSync(join(sandbox.root, `a-ran-${i}`))), 20_000)).toBe(true);
      // Tenant b's granted command runs while a's are held.
      const other = await dispatch('b', 'other', [{ call_id: 'b1', command: 'echo b-ran' }]);
      expect(other.results[0]).toMatchObject({ status: 'ok', content: expect.stringContaining('b-ran') });
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { limits: Record<string, { value: number }> };
      expect(health.limits.commands_per_tenant?.value).toBe(1);

      await writeFile(join(sandbox.root, 'release'), '');
      const { results } = await flooding;
      expect(results.filter((result) => result.status === 'ok')).toHaveLength(1);
      const refused = results.filter((result) => result.status === 'unavailable');
      expect(refused).toHaveLength(4);
      for (const { content } of refused) {
        expect(content).toMatch(/busy for tenant "a": it runs 2 commands at once, shared between its 2 tenants, and already runs 1 of this tenant's, its share, so this one was not run\. Retry it when one of them has finished: the soonest of them ends within \d+ s at the latest/);
        // Granted without a human, the held command runs at most 30 s (+ the kill grace), not the 600 s it asked for.
        expect(Number(/within (\d+) s/.exec(content)?.[1])).toBeLessThanOrEqual(33);
      }
    } finally {
      await close();
    }
  }, 60_000);

  it("the granting rule's max_timeout_ms, not the model's timeout_ms, bounds a granted command; a human's approval keeps the model's", async () => {
    const policy: PolicyConfig = { execute: 'review', rules: [{ tool: 'shell', arguments: { command: 'sleep [0-9]+' }, action: 'grant', max_timeout_ms: 1_000 }] };
    const { gw, dispatch, close } = await setup({ c: policy }, 2);
    try {
      const granted = await dispatch('c', 'limit', [{ call_id: 'g1', command: 'sleep 30', timeout_ms: 600_000 }]);
      expect(granted.results[0].status).toBe('ok');
      expect(granted.results[0].content).toContain('[ERROR: Command timed out after 1000 ms and was stopped.');
      expect(granted.results[0].content).toContain("without a human's approval may take at most 1000 ms here, whatever timeout_ms asks");

      const parked = await dispatch('c', 'approved', [{ call_id: 'h1', command: 'sleep 2 && echo approved-ran', timeout_ms: 600_000 }]);
      expect(parked.results[0].status).toBe('pending_approval');
      const decided = await gw.request(`/v1/approvals/${parked.results[0].error?.details?.approval_id}`, { key: 'c-approver', json: { decision: 'approve' } });
      const { result } = (await decided.json()) as { result: { status: string; content: string } };
      expect(result).toMatchObject({ status: 'ok', content: expect.stringContaining('approved-ran') });
      expect(result.content).toMatch(/^Exit code: 0/);
    } finally {
      await close();
    }
  }, 60_000);
});
