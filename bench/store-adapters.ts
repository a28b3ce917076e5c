/**
 * The four Store adapters on real backends (the same ones the tests use): memory, a SQLite file,
 * redis-server behind the Upstash REST bridge, dynalite. Each runs a body and is torn down after
 * it, whatever happens.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoDbClient, DynamoDbStore } from '../lib/stores/dynamodb/dynamodb-store.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { SqliteStore } from '../lib/stores/sqlite/sqlite-store.ts';
import type { Store } from '../lib/stores/store.ts';
import { UpstashStore } from '../lib/stores/upstash/upstash-store.ts';
import { createFreshTable, dynaliteClientOptions, startDynalite } from '../test/support/dynalite.ts';
import { startRedisServer } from '../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../scripts/dev/upstash-bridge.ts';
import { dynamoDbOperation, RoundTripMeter, upstashCommand, withGlobalFetch } from './store-meters.ts';

export interface OpenStore {
  store: Store;
  /** HTTP requests and round trips from this process to the store; absent for in-process stores. */
  meter?: RoundTripMeter;
  /** Requests as the server saw them (the Upstash bridge's log), to cross-check the meter. */
  serverRequests?: () => number;
}

export interface StoreAdapter {
  name: string;
  /** Whether the store is reached over the network: its round trips have a budget. */
  remote: boolean;
  use<T>(body: (open: OpenStore) => Promise<T>): Promise<T>;
}

async function closing<T>(store: Store, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    await store.close();
  }
}

const memory: StoreAdapter = {
  name: 'memory',
  remote: false,
  use(body) {
    const store = new MemoryStore();
    return closing(store, () => body({ store }));
  },
};

const sqlite: StoreAdapter = {
  name: 'sqlite',
  remote: false,
  async use(body) {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-bench-sqlite-'));
    try {
      const store = new SqliteStore(join(dir, 'toolgate.db'));
      return await closing(store, () => body({ store }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** @upstash/redis calls the global fetch, so the meter goes there for the body's duration. */
const upstash: StoreAdapter = {
  name: 'upstash',
  remote: true,
  async use(body) {
    const redis = await startRedisServer();
    try {
      const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'bench-token' });
      try {
        const meter = new RoundTripMeter(globalThis.fetch, upstashCommand);
        const store = new UpstashStore({ url: bridge.url, token: bridge.token });
        const open: OpenStore = { store, meter, serverRequests: () => bridge.requests.length };
        return await withGlobalFetch(meter.fetch, () => closing(store, () => body(open)));
      } finally {
        await bridge.close();
      }
    } finally {
      await redis.stop();
    }
  },
};

/** The meter is the client's own fetch, as test/stores/dynamodb.test.ts counts requests. */
const dynamodb: StoreAdapter = {
  name: 'dynamodb',
  remote: true,
  async use(body) {
    const dynalite = await startDynalite();
    try {
      const table = await createFreshTable(dynalite.endpoint);
      const meter = new RoundTripMeter((input, init) => fetch(input, init), dynamoDbOperation);
      const store = new DynamoDbStore({ client: createDynamoDbClient(dynaliteClientOptions(dynalite.endpoint, { fetch: meter.fetch })), table });
      return await closing(store, () => body({ store, meter }));
    } finally {
      await dynalite.stop();
    }
  },
};

export const STORE_ADAPTERS: StoreAdapter[] = [memory, sqlite, upstash, dynamodb];
