import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import type { Store } from '../../lib/stores/store.ts';
import { UpstashStore } from '../../lib/stores/upstash/upstash-store.ts';
import { startRedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../../scripts/dev/upstash-bridge.ts';

export interface RunningStore {
  store: Store;
  /** Stops the store's servers and removes its files. */
  stop(): Promise<void>;
}

/** A real SQLite file in a temp folder. */
export async function openSqliteStore(): Promise<RunningStore> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-store-'));
  const store = new SqliteStore(join(dir, 'toolgate.db'));
  return { store, stop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
}

/** A real redis-server behind the Upstash REST bridge, used through @upstash/redis. */
export async function openUpstashStore(): Promise<RunningStore & { redisPort: number; bridgeUrl: string; token: string }> {
  const redis = await startRedisServer();
  const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'fixture-token' });
  const store = new UpstashStore({ url: bridge.url, token: bridge.token });
  return { store, redisPort: redis.port, bridgeUrl: bridge.url, token: bridge.token, stop: async () => { await store.close(); await bridge.close(); await redis.stop(); } };
}
