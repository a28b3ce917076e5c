import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient, DynamoDbStore, type DynamoDbClientOptions } from '../../lib/stores/dynamodb/dynamodb-store.ts';
import { scoreFromKey, scoreKey } from '../../lib/stores/dynamodb/ordered-index.ts';
import { StoreUnavailableError, type StateRecord, type StoredEnvelope, type ThreadRef } from '../../lib/stores/store.ts';
import { createFreshTable, createTestTable, dynaliteClientOptions, openDynamoDbStore, startDynalite, type RunningDynalite } from '../support/dynalite.ts';
import { storeContract } from './contract.ts';

storeContract('dynamodb', async () => {
  const clock = { now: Date.now() };
  const { store, dynalite } = await openDynamoDbStore({ now: () => clock.now });
  // The suite closes the store itself.
  return { store, clock, cleanup: () => dynalite.stop() };
});

/** Every HTTP request the client sends, by operation, and how many were in flight at most. */
class RequestLog {
  operations: string[] = [];
  maxInFlight = 0;
  #inFlight = 0;
  /** Answers the next request of `operation` itself (it may pass the request on first). */
  intercept?: { operation: string; answer: (request: Request) => Response | Promise<Response> };
  #together: string[] = [];

  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const operation = request.headers.get('x-amz-target')?.split('.')[1] ?? '?';
    this.operations.push(operation);
    if (this.intercept?.operation === operation) {
      const { answer } = this.intercept;
      this.intercept = undefined;
      return answer(request);
    }
    this.maxInFlight = Math.max(this.maxInFlight, ++this.#inFlight);
    try {
      for (const until = Date.now() + HOLD_MS; this.#together.includes(operation) && this.maxInFlight < 2 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 2));
      return await fetch(request);
    } finally {
      this.#inFlight--;
    }
  };

  reset(): void {
    this.operations = [];
    this.maxInFlight = 0;
  }

  /**
   * Runs `body` holding each request of `operations` until two have been in flight at once (at most HOLD_MS).
   * Two requests the store sends together then overlap even when signing one of them (WebCrypto,
   * on Node's thread pool) lags on a loaded machine; a store that waited for one answer before
   * sending the next would still show one in flight.
   */
  async heldTogether<T>(operations: string[], body: () => Promise<T>): Promise<T> {
    this.#together = operations;
    try {
      return await body();
    } finally {
      this.#together = [];
    }
  }
}

const HOLD_MS = 3_000;

/** The request reaches dynalite and is applied, but the client sees a 500 and sends it again. */
async function lostAnswer(request: Request): Promise<Response> {
  await fetch(request);
  return Response.json({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'answer lost on the way back' }, { status: 500, headers: { 'content-type': 'application/x-amz-json-1.0' } });
}

const HOUR = 3_600_000;
let n = 0;
const key = (name: string) => `adapter/${Date.now()}-${n++}/${name}`;
const thread = (): ThreadRef => ({ tenant: 'acme', thread_id: `t-${Date.now()}-${n++}` });
const record = (state: string, extra: Partial<StateRecord> = {}): StateRecord => ({ state, expires_at: Date.now() + HOUR, data: { n: 1 }, ...extra });
const envelope = (seq: number, prev: string | null, extra: Record<string, unknown> = {}): StoredEnvelope => ({ seq, prev_hash: prev, hash: `h${seq}-${n++}`, ...extra });

describe('DynamoDbStore on dynalite', () => {
  let dynalite: RunningDynalite;
  let table: string;
  let log: RequestLog;
  let store: DynamoDbStore;
  const open = (extra: Partial<DynamoDbClientOptions> = {}) => new DynamoDbStore({ client: createDynamoDbClient(dynaliteClientOptions(dynalite.endpoint, extra)), table });

  beforeAll(async () => {
    dynalite = await startDynalite();
    table = await createFreshTable(dynalite.endpoint);
    log = new RequestLog();
    // Long attempts: a request the log holds (heldTogether) must not time out meanwhile.
    store = open({ fetch: log.fetch, requestTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    await store?.close();
    await dynalite?.stop();
  });

  describe('request counts', () => {
    it('claimWithHead sends a PutItem and a GetItem at the same time (one round trip)', async () => {
      log.reset();
      const outcome = await log.heldTogether(['GetItem', 'PutItem'], () => store.claimWithHead(key('cwh'), record('in_progress'), thread()));
      expect(outcome).toEqual({ claim: { claimed: true }, head: null });
      expect(log.operations.toSorted()).toEqual(['GetItem', 'PutItem']);
      expect(log.maxInFlight).toBe(2);
    });

    it('commit with a record change and an append is one TransactWriteItems', async () => {
      const k = key('commit');
      await store.put(k, record('in_progress', { owner: 'me' }));
      log.reset();
      const outcome = await store.commit({ record: { key: k, expect: { state: 'in_progress', owner: 'me' }, next: record('completed') }, append: { thread: thread(), expected: null, envelopes: [envelope(1, null), envelope(2, 'x'), envelope(3, 'y')] } });
      expect(outcome.record).toEqual({ ok: true });
      expect(outcome.append?.ok).toBe(true);
      expect(log.operations).toEqual(['TransactWriteItems']);
    });

    it('an append alone is one TransactWriteItems; claim, transition and get are one request each', async () => {
      log.reset();
      const k = key('single');
      await store.commit({ append: { thread: thread(), expected: null, envelopes: [envelope(1, null)] } });
      await store.claim(k, record('in_progress'));
      await store.transition(k, { state: 'in_progress' }, record('completed'));
      await store.get(k);
      expect(log.operations).toEqual(['TransactWriteItems', 'PutItem', 'PutItem', 'GetItem']);
    });
  });

  describe('when a condition fails', () => {
    it('a lost claim returns the existing record, read back with a consistent GetItem', async () => {
      const k = key('lost');
      await store.claim(k, record('in_progress', { owner: 'first', data: { who: 'first' } }));
      log.reset();
      const outcome = await store.claim(k, record('in_progress', { owner: 'second' }));
      expect(outcome).toMatchObject({ claimed: false, existing: { state: 'in_progress', owner: 'first', data: { who: 'first' } } });
      expect(log.operations).toEqual(['PutItem', 'GetItem']);
    });

    it('a failed transition and a failed remove report without writing', async () => {
      const k = key('cas');
      await store.put(k, record('pending'));
      log.reset();
      expect(await store.transition(k, { state: 'approved' }, record('executed'))).toMatchObject({ ok: false, current: { state: 'pending' } });
      expect(await store.remove(k, { state: 'approved' })).toBe(false);
      expect(log.operations).toEqual(['PutItem', 'GetItem', 'DeleteItem']);
      expect(await store.get(k)).toMatchObject({ state: 'pending' });
    });

    it('a commit whose append is stale still applies the record change, alone, and returns the head', async () => {
      const t = thread();
      const first = envelope(1, null);
      await store.commit({ append: { thread: t, expected: null, envelopes: [first] } });
      const k = key('stale-head');
      await store.put(k, record('in_progress'));
      log.reset();
      const outcome = await log.heldTogether(['GetItem', 'PutItem'], () => store.commit({ record: { key: k, expect: { state: 'in_progress' }, next: record('completed') }, append: { thread: t, expected: null, envelopes: [envelope(1, null)] } }));
      expect(outcome).toEqual({ record: { ok: true }, append: { ok: false, head: { seq: 1, hash: first.hash } } });
      expect(log.operations[0]).toBe('TransactWriteItems');
      expect(log.operations.slice(1).toSorted()).toEqual(['GetItem', 'PutItem']);
      expect(log.maxInFlight).toBe(2);
      expect(await store.get(k)).toMatchObject({ state: 'completed' });
      expect((await store.listAudit(t, { limit: 10 })).envelopes).toEqual([first]);
    });

    it('a commit whose record change fails still appends, alone, and returns the current record', async () => {
      const t = thread();
      const k = key('wrong-state');
      await store.put(k, record('completed', { data: { done: true } }));
      log.reset();
      const outcome = await store.commit({ record: { key: k, expect: { state: 'in_progress' }, next: null }, append: { thread: t, expected: null, envelopes: [envelope(1, null)] } });
      expect(outcome.record).toMatchObject({ ok: false, current: { state: 'completed', data: { done: true } } });
      expect(outcome.append?.ok).toBe(true);
      expect(log.operations.slice(1).toSorted()).toEqual(['GetItem', 'TransactWriteItems']);
      expect(await store.readAuditHead(t)).toMatchObject({ seq: 1 });
    });

    it('a claim resent by the client after its answer was lost recognises its own write', async () => {
      const k = key('lost-answer');
      log.reset();
      log.intercept = { operation: 'PutItem', answer: lostAnswer };
      expect(await store.claim(k, record('in_progress', { owner: 'lease-1' }))).toEqual({ claimed: true });
      expect(log.operations).toEqual(['PutItem', 'PutItem', 'GetItem']);
      expect((await store.claim(k, record('in_progress', { owner: 'lease-2' }))).claimed).toBe(false);
    });

    it('so does a transition guarded by its owner', async () => {
      const k = key('lost-transition');
      await store.put(k, record('in_progress', { owner: 'lease-1' }));
      log.intercept = { operation: 'PutItem', answer: lostAnswer };
      const done = record('completed', { owner: 'lease-1', data: { result: 'ok' } });
      expect(await store.transition(k, { state: 'in_progress', owner: 'lease-1' }, done)).toEqual({ ok: true });
      expect(await store.transition(k, { state: 'in_progress', owner: 'lease-1' }, done)).toMatchObject({ ok: false });
    });

    it('retries a transaction that DynamoDB cancelled for a conflict (nothing was applied)', async () => {
      const k = key('conflict');
      await store.put(k, record('in_progress'));
      log.reset();
      log.intercept = {
        operation: 'TransactWriteItems',
        answer: () => Response.json({ __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', Message: 'Transaction cancelled [TransactionConflict, None]', CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] }, { status: 400, headers: { 'content-type': 'application/x-amz-json-1.0' } }),
      };
      const outcome = await store.commit({ record: { key: k, expect: { state: 'in_progress' }, next: record('completed') }, append: { thread: thread(), expected: null, envelopes: [envelope(1, null)] } });
      expect(outcome).toMatchObject({ record: { ok: true }, append: { ok: true } });
      expect(log.operations).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    });
  });

  describe('items', () => {
    it('a lingering expired item (TTL not swept yet) is invisible and claimable', async () => {
      const k = key('lingering');
      await store.put(k, record('completed', { expires_at: Date.now() - 1000 }));
      expect(await store.get(k)).toBeUndefined();
      expect(await store.transition(k, { state: 'completed' }, record('x'))).toEqual({ ok: false, current: undefined });
      expect(await store.claim(k, record('in_progress'))).toEqual({ claimed: true });
    });

    it('gzips large payloads and reads them back; refuses what cannot fit in an item', async () => {
      const output = 'line of tool output ✓\n'.repeat(30_000);
      const k = key('large');
      await store.put(k, record('completed', { data: { output } }));
      expect((await store.get(k))?.data.output).toBe(output);
      const t = thread();
      await store.commit({ append: { thread: t, expected: null, envelopes: [envelope(1, null, { data: { output } })] } });
      expect((await store.listAudit(t, { limit: 1 })).envelopes[0].data).toEqual({ output });

      const noise = Array.from({ length: 60_000 }, () => Math.random().toString(36).slice(2)).join('');
      await expect(store.put(key('huge'), record('completed', { data: { noise } }))).rejects.toThrow(/more than a DynamoDB item can hold/);
    });

    it('orders index scores as numbers: negative, fractional and large', () => {
      const scores = [-1e300, -2.5, -1, -0.001, 0, 1e-9, 1, 2.5, 1_700_000_000_000, 1e300];
      expect(scores.map(scoreKey).toSorted().map(scoreFromKey)).toEqual(scores);
      expect(scoreFromKey(scoreKey(-0))).toBe(0);
    });

    it('an empty list of expected states matches nothing (as in the memory store)', async () => {
      const k = key('no-states');
      await store.put(k, record('pending'));
      expect(await store.transition(k, { state: [] }, record('approved'))).toMatchObject({ ok: false, current: { state: 'pending' } });
      expect(await store.remove(k, { state: [], owner: 'me' })).toBe(false);
    });

    it('names what was too long when a key exceeds DynamoDB limits', async () => {
      await expect(store.get('k'.repeat(3000))).rejects.toThrow(/record key is too long for DynamoDB/);
    });
  });

  describe('availability', () => {
    it('rejects with StoreUnavailableError when dynalite is down, and works again once it is back', async () => {
      const k = key('outage');
      const resilient = open();
      await resilient.put(k, record('pending'));
      await dynalite.stop();
      const calls = [resilient.get(k), resilient.claim(key('x'), record('in_progress')), resilient.readAuditHead(thread()), resilient.commit({ append: { thread: thread(), expected: null, envelopes: [envelope(1, null)] } }), resilient.listIndex('i', { limit: 1 })];
      for (const outcome of await Promise.allSettled(calls)) {
        expect(outcome.status).toBe('rejected');
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(StoreUnavailableError);
      }

      dynalite = await startDynalite({ port: dynalite.port });
      await createTestTable(dynalite.endpoint, table);
      expect(await resilient.get(k)).toBeUndefined();
      await resilient.put(k, record('pending'));
      expect(await resilient.get(k)).toMatchObject({ state: 'pending' });
      await resilient.close();
    }, 20_000);

    it('gives up on a server that accepts connections but never answers', async () => {
      const sockets = new Set<import('node:net').Socket>();
      const silent: Server = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as import('node:net').AddressInfo).port;
      const stuck = new DynamoDbStore({ client: createDynamoDbClient(dynaliteClientOptions(`http://127.0.0.1:${port}`, { requestTimeoutMs: 300 })), table });
      try {
        const error = await stuck.get(key('never')).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(/store "dynamodb" is unavailable/);
      } finally {
        await stuck.close();
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    }, 10_000);
  });
});
