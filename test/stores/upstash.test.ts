import { Redis as UpstashClient } from '@upstash/redis';
import { Redis as RedisClient } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type StateRecord, type Store, type StoredEnvelope, type ThreadRef } from '../../lib/stores/store.ts';
import { UpstashStore } from '../../lib/stores/upstash/upstash-store.ts';
import { startTestServer } from '../helpers/http-server.ts';
import { startRedisServer, type RedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge, type UpstashBridge } from '../../scripts/dev/upstash-bridge.ts';
import { storeContract } from './contract.ts';

const HOUR = 3_600_000;

storeContract('upstash', async () => {
  const redis = await startRedisServer();
  const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'contract-token' });
  const clock = { now: Date.now() };
  return {
    store: new UpstashStore({ url: bridge.url, token: bridge.token, now: () => clock.now }),
    clock,
    cleanup: async () => { await bridge.close(); await redis.stop(); },
  };
});

const record = (state: string, extra: Partial<StateRecord> = {}): StateRecord => ({ state, expires_at: Date.now() + HOUR, data: { n: 1 }, ...extra });
const envelope = (seq: number, prev: string | null, extra: Record<string, unknown> = {}): StoredEnvelope => ({ seq, prev_hash: prev, hash: `h${seq}`, type: 'tool.call.result', ...extra });

/** One call of every Store method, each touching the backend once. */
function everyMethod(store: Store): Array<[string, () => Promise<unknown>]> {
  const thread = { tenant: 'down', thread_id: 'thread' };
  return [
    ['claim', () => store.claim('k', record('s'))],
    ['transition', () => store.transition('k', { state: 's' }, record('t'))],
    ['get', () => store.get('k')],
    ['put', () => store.put('k', record('s'))],
    ['remove', () => store.remove('k', { state: 's' })],
    ['readAuditHead', () => store.readAuditHead(thread)],
    ['listAudit', () => store.listAudit(thread, { limit: 5 })],
    ['claimWithHead', () => store.claimWithHead('k', record('s'), thread)],
    ['commit', () => store.commit({ record: { key: 'k', expect: { state: 's' }, next: null }, append: { thread, expected: null, envelopes: [envelope(1, null)] } })],
    ['addToIndex', () => store.addToIndex('i', 'm', 1)],
    ['listIndex', () => store.listIndex('i', { limit: 5 })],
  ];
}

/** Every method must fail as StoreUnavailableError, and soon: a dead store must never hang a dispatch. */
async function expectEveryMethodUnavailable(store: Store, message: RegExp, withinMs: number): Promise<void> {
  const started = Date.now();
  const methods = everyMethod(store);
  const outcomes = await Promise.allSettled(methods.map(([, call]) => call()));
  const elapsed = Date.now() - started;
  outcomes.forEach((outcome, i) => {
    expect(outcome.status, methods[i][0]).toBe('rejected');
    if (outcome.status === 'rejected') {
      expect(outcome.reason, methods[i][0]).toBeInstanceOf(StoreUnavailableError);
      expect((outcome.reason as Error).message, methods[i][0]).toMatch(message);
    }
  });
  expect(elapsed).toBeLessThan(withinMs);
}

async function eventually(check: () => Promise<unknown>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

describe('UpstashStore against redis-server behind the REST bridge', () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  let direct: RedisClient;
  let store: UpstashStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'adapter-token' });
    direct = new RedisClient(redis.url);
    store = new UpstashStore({ url: bridge.url, token: bridge.token, prefix: 'adapter:' });
  });
  afterAll(async () => {
    direct?.disconnect();
    await bridge?.close();
    await redis?.stop();
  });

  const requestsFor = async (call: () => Promise<unknown>) => {
    const before = bridge.requests.length;
    await call();
    return bridge.requests.slice(before);
  };

  it('answers claimWithHead and commit in one request each (one EVAL), and every other method in one', async () => {
    const thread = { tenant: 'budget', thread_id: 't1' };
    const claimWithHead = await requestsFor(() => store.claimWithHead('budget/k', record('in_progress', { owner: 'me' }), thread));
    expect(claimWithHead).toEqual([{ path: '/', status: 200, commands: ['EVAL'], encoding: 'base64' }]);
    const commit = await requestsFor(() => store.commit({
      record: { key: 'budget/k', expect: { state: 'in_progress', owner: 'me' }, next: record('completed', { owner: 'me' }) },
      append: { thread, expected: null, envelopes: [envelope(1, null), envelope(2, 'h1')] },
    }));
    expect(commit).toEqual([{ path: '/', status: 200, commands: ['EVAL'], encoding: 'base64' }]);
    for (const [name, call] of everyMethod(store)) expect((await requestsFor(call)).length, name).toBe(1);
  });

  it('round-trips unicode, control characters, lone surrogates and base64-looking text exactly', async () => {
    const data = {
      text: 'ünïcode ✓ 漢字 שלום é 😀 👩‍👩‍👧',
      controls: '\u0000\u0001\u001f\u2028\u2029 "quotes" \\backslash\\',
      half_emoji: '😀'.slice(0, 1), // a truncation can cut a surrogate pair in half
      looks_encoded: ['OK', 'T0s=', 'bnVsbA==', 'null', '123', 'true'],
      long: 'ß'.repeat(100_000),
      numbers: [0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER],
      empty: { list: [], object: {} },
    };
    const owner = `owner ✓ ${'😀'.slice(1)}`;
    const mine = record('in ✓ progress', { owner, data });
    expect(await store.claim('unicode/ü:k', mine)).toEqual({ claimed: true });
    expect(await store.claim('unicode/ü:k', record('in ✓ progress', { owner: 'other' }))).toEqual({ claimed: false, existing: mine });
    expect(await store.get('unicode/ü:k')).toEqual(mine);
    expect((await store.transition('unicode/ü:k', { state: 'in ✓ progress', owner: `owner ✓ ${'😀'.slice(0, 1)}` }, record('x'))).ok).toBe(false);
    expect(await store.transition('unicode/ü:k', { state: 'in ✓ progress', owner }, { ...mine, state: 'done ✓' })).toEqual({ ok: true });

    const thread = { tenant: 'tenant ü/😀', thread_id: 'thread:✓' };
    const envelopes = [envelope(1, null, { data }), envelope(2, 'h1', { output: data.half_emoji })];
    expect((await store.commit({ append: { thread, expected: null, envelopes } })).append).toEqual({ ok: true, head: { seq: 2, hash: 'h2' } });
    expect((await store.listAudit(thread, { limit: 10 })).envelopes).toEqual(envelopes);

    await store.addToIndex('index ü/:', 'member ✓/😀:x', 1);
    expect(await store.listIndex('index ü/:', { limit: 5 })).toEqual([{ member: 'member ✓/😀:x', score: 1 }]);
  });

  it('keeps keys apart whatever `/`, `:`, `%` or unicode they contain', async () => {
    const threads: ThreadRef[] = [
      { tenant: 'a:b', thread_id: 'c' }, { tenant: 'a', thread_id: 'b:c' },
      { tenant: 'a/b', thread_id: 'c' }, { tenant: 'a', thread_id: 'b/c' },
      { tenant: 'ü', thread_id: 'x' }, { tenant: 'u', thread_id: 'x' },
    ];
    for (const [i, thread] of threads.entries()) {
      await store.commit({ append: { thread, expected: null, envelopes: [envelope(1, null, { hash: `thread-${i}` })] } });
    }
    for (const [i, thread] of threads.entries()) expect(await store.readAuditHead(thread)).toEqual({ seq: 1, hash: `thread-${i}` });

    const keys = ['k:1', 'k%3A1', 'k/1', 'k%2F1', 'rec:k', 'ü', '%C3%BC'];
    for (const key of keys) await store.put(`apart/${key}`, record(key));
    for (const key of keys) expect(await store.get(`apart/${key}`)).toMatchObject({ state: key });
  });

  it('lets Redis collect a record only after its expiry plus a grace period; records without expiry stay', async () => {
    const expiresAt = Date.now() + HOUR;
    await store.put('gc/expiring', record('s', { expires_at: expiresAt }));
    await store.put('gc/eternal', record('s', { expires_at: 0 }));
    expect(Number(await direct.pexpiretime('adapter:rec:gc%2Fexpiring'))).toBe(expiresAt + 300_000);
    expect(Number(await direct.pexpiretime('adapter:rec:gc%2Feternal'))).toBe(-1);
  });

  it('reports a Redis error as unavailable, without echoing the command (it holds records and scripts)', async () => {
    await direct.set('adapter:rec:wrong-type', 'a plain string where a record hash belongs');
    const failure = store.claim('wrong-type', record('s', { data: { secret: 'do-not-echo' } }));
    await expect(failure).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(failure).rejects.toThrow(/WRONGTYPE/);
    await expect(failure).rejects.not.toThrow(/do-not-echo|redis\.call|command was/);
  });

  it('says the token was refused when it is wrong', async () => {
    const wrong = new UpstashStore({ url: bridge.url, token: 'not-the-token' });
    const failure = wrong.claim('token', record('s', { data: { secret: 'do-not-echo' } }));
    await expect(failure).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(failure).rejects.toThrow(/refused the REST token.*UPSTASH_REDIS_REST_TOKEN/);
    await expect(failure).rejects.not.toThrow(/do-not-echo|not-the-token/);
    expect(bridge.requests.at(-1)?.status).toBe(401);
  });

  it('refuses calls after close', async () => {
    const closing = new UpstashStore({ url: bridge.url, token: bridge.token });
    await closing.close();
    await expect(closing.get('k')).rejects.toThrow(/closed/);
  });
});

describe('UpstashStore when the store goes down and comes back', () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  it('fails every method fast while redis-server or the REST endpoint is down, and recovers without a new store', async () => {
    redis = await startRedisServer();
    bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'down-token' });
    const port = Number(new URL(bridge.url).port);
    const store = new UpstashStore({ url: bridge.url, token: 'down-token', prefix: 'down:' });
    await store.put('before', record('s'));

    await redis.stop();
    await expectEveryMethodUnavailable(store, /is unavailable: Upstash answered an error/, 2500);
    redis = await startRedisServer({ port: redis.port });
    await eventually(() => store.put('after-redis', record('back')));
    expect(await store.get('after-redis')).toMatchObject({ state: 'back' });

    await bridge.close();
    await expectEveryMethodUnavailable(store, /the request to the Upstash REST URL failed/, 2500);
    bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'down-token', port });
    await eventually(() => store.put('after-bridge', record('back')));
    expect(await store.claim('after-bridge', record('again'))).toMatchObject({ claimed: false, existing: { state: 'back' } });
  }, 60_000);

  it('gives up on an endpoint that accepts but never answers, after timeoutMs', async () => {
    const silent = await startTestServer(() => {});
    try {
      const store = new UpstashStore({ url: silent.url, token: 't', timeoutMs: 300 });
      await expectEveryMethodUnavailable(store, /no answer from Upstash within 300 ms/, 2500);
    } finally {
      await silent.close();
    }
  });

  it('reports an endpoint that answers something other than JSON', async () => {
    const html = await startTestServer((_request, response) => { response.writeHead(502, { 'content-type': 'text/html' }); response.end('<html>bad gateway</html>'); });
    const text = await startTestServer((_request, response) => { response.writeHead(200); response.end(JSON.stringify({ result: btoa('not json') })); });
    try {
      await expectEveryMethodUnavailable(new UpstashStore({ url: html.url, token: 't' }), /not JSON/, 2500);
      await expect(new UpstashStore({ url: text.url, token: 't' }).get('k')).rejects.toThrow(/answered stored text that is not JSON/);
      await expect(new UpstashStore({ url: text.url, token: 't' }).claim('k', record('s'))).rejects.toThrow(/where a list of 2 was expected/);
    } finally {
      await html.close();
      await text.close();
    }
  });
});

describe('Upstash REST bridge', () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  beforeAll(async () => {
    redis = await startRedisServer();
    bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'bridge-token' });
  });
  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${bridge.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { authorization: 'Bearer bridge-token', ...headers } });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it('speaks the REST protocol: commands, errors as 400, pipelines, transactions, 401 without the token', async () => {
    expect(await post('/', ['SET', 'bridge:k', 'ü'])).toEqual({ status: 200, body: { result: 'OK' } });
    expect(await post('/', ['GET', 'bridge:k'])).toEqual({ status: 200, body: { result: 'ü' } });
    expect(await post('/', ['GET', 'bridge:k'], { 'upstash-encoding': 'base64' })).toEqual({ status: 200, body: { result: Buffer.from('ü').toString('base64') } });
    expect(await post('/', ['INCR', 'bridge:k'])).toEqual({ status: 400, body: { error: 'ERR value is not an integer or out of range' } });
    expect(await post('/pipeline', [['SET', 'bridge:n', 1], ['INCR', 'bridge:n'], ['HGET', 'bridge:n', 'f']])).toEqual({
      status: 200,
      body: [{ result: 'OK' }, { result: 2 }, { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' }],
    });
    expect(await post('/multi-exec', [['SET', 'bridge:m', 'x'], ['GET', 'bridge:m']], { 'upstash-encoding': 'base64' })).toEqual({ status: 200, body: [{ result: 'OK' }, { result: btoa('x') }] });
    expect((await post('/multi-exec', [['NO-SUCH-COMMAND']])).status).toBe(400);
    expect(await post('/', ['GET', 'bridge:k'], { authorization: 'Bearer wrong' })).toEqual({ status: 401, body: { error: 'Unauthorized' } });
  });

  it('serves the real @upstash/redis client: commands, pipelines and transactions, unicode intact', async () => {
    const client = new UpstashClient({ url: bridge.url, token: 'bridge-token', enableTelemetry: false });
    await client.set('bridge:json', { text: 'ü ✓ 😀' });
    expect(await client.get('bridge:json')).toEqual({ text: 'ü ✓ 😀' });
    expect(await client.pipeline().set('bridge:p', 'ß').get('bridge:p').exec()).toEqual(['OK', 'ß']);
    expect(await client.multi().incr('bridge:c').incr('bridge:c').exec()).toEqual([1, 2]);
    expect(await client.eval('return {1, false, ARGV[1]}', [], ['✓'])).toEqual([1, null, '✓']);
  });
});
