import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/stores/store.ts';
import { UpstashStore } from '../../lib/stores/upstash/upstash-store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { createDynamoDbClient, DynamoDbStore } from '../../lib/stores/dynamodb/dynamodb-store.ts';
import { createTestTable, dynaliteClientOptions, startDynalite } from '../support/dynalite.ts';
import { startRedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../../scripts/dev/upstash-bridge.ts';

/** A store whose backing server can be stopped and started again on the same port. */
interface Outage {
  store: Store;
  kill(): Promise<void>;
  revive(): Promise<void>;
  stop(): Promise<void>;
}

async function upstashOutage(): Promise<Outage> {
  let redis = await startRedisServer();
  const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 't' });
  return {
    store: new UpstashStore({ url: bridge.url, token: 't', timeoutMs: 1000 }),
    kill: () => redis.stop(),
    revive: async () => { redis = await startRedisServer({ port: redis.port }); },
    stop: async () => { await bridge.close(); await redis.stop(); },
  };
}

async function dynamoDbOutage(): Promise<Outage> {
  let dynalite = await startDynalite();
  const table = 'outage';
  await createTestTable(dynalite.endpoint, table);
  const store = new DynamoDbStore({ client: createDynamoDbClient(dynaliteClientOptions(dynalite.endpoint)), table });
  return {
    store,
    kill: () => dynalite.stop(),
    // dynalite keeps its tables in memory: "back" is a new server on the same port with the table.
    revive: async () => { dynalite = await startDynalite({ port: dynalite.port }); await createTestTable(dynalite.endpoint, table); },
    stop: async () => { await store.close(); await dynalite.stop(); },
  };
}

async function waitUntilReachable(store: Store, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await store.get('probe');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The store dies mid-run: side effects answer `unavailable` and nothing runs (fail closed), reads
 * still run, nothing is a 500; the store comes back and service resumes without a restart.
 */
describe.each([
  ['upstash over a real redis-server', upstashOutage],
  ['dynamodb on dynalite', dynamoDbOutage],
] as const)('store outage (%s)', (_name, open) => {
  let outage: Outage;
  let gw: Awaited<ReturnType<typeof testGateway>>;
  let writes = 0;

  beforeAll(async () => {
    outage = await open();
    const store = outage.store;
    const manifest = validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'grant', execute: 'deny' },
      tools: [{ name: 'echo', executor: { kind: 'builtin' } }, { name: 'save', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }],
    });
    gw = await testGateway([manifest], { key: { tenant: 'acme', scopes: ['audit:read'] } }, { store });
    // Count executions of the write tool by wrapping its executor.
    const runtime = (await gw.tenants.runtime('acme'))!;
    const save = runtime.registry.get('save')!;
    runtime.registry.register({ ...save, execute: async (args, ctx) => { writes++; return save.execute(args, ctx); } }, { replace: true });
  }, 60_000);
  afterAll(async () => { await outage?.stop(); });

  const dispatch = async (calls: unknown[]) => {
    const response = await gw.request('/v1/dispatch', { key: 'key', json: { thread_id: 'outage', calls } });
    return { status: response.status, body: await response.json() };
  };

  it('works while the store is up', async () => {
    const { status, body } = await dispatch([{ call_id: 'w1', name: 'save', arguments: { text: 'one' } }, { call_id: 'r1', name: 'echo', arguments: { text: 'read' } }]);
    expect(status).toBe(200);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['ok', 'ok']);
    expect(writes).toBe(1);
  });

  it('fails closed for side effects while the store is down, and reads still run', async () => {
    await outage.kill();
    const { status, body } = await dispatch([{ call_id: 'w2', name: 'save', arguments: { text: 'two' } }, { call_id: 'r2', name: 'echo', arguments: { text: 'still reading' } }]);
    expect(status).toBe(200);
    const storeName = outage.store.name;
    expect(body.results[0]).toMatchObject({ status: 'unavailable', is_error: true, error: { details: { store: storeName } } });
    expect(body.results[0].content).toMatch(new RegExp(`^Tool \`save\` was not run: the ${storeName} store is unavailable \\(.+\\)\\. Nothing was executed; retry later\\.$`));
    expect(body.results[1]).toMatchObject({ status: 'ok', content: 'still reading' });
    expect(writes).toBe(1);
    const audit = await gw.request('/v1/audit?thread_id=outage', { key: 'key' });
    expect(audit.status).toBe(503);
    expect((await audit.json()).error.code).toBe('unavailable');
  });

  it('resumes when the store is back, without a restart', async () => {
    await outage.revive();
    // The bridge's Redis connection reconnects with a short backoff; "back" means reachable again.
    await waitUntilReachable(gw.store);
    const { body } = await dispatch([{ call_id: 'w2', name: 'save', arguments: { text: 'two' } }]);
    expect(body.results[0]).toMatchObject({ status: 'ok', content: 'two' });
    expect(writes).toBe(2);
  });
});
