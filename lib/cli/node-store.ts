import { join } from 'node:path';
import { remoteStoreFromEnv, storeKindFromEnv } from '../stores/config.ts';
import { SqliteStore } from '../stores/sqlite/sqlite-store.ts';
import type { Store } from '../stores/store.ts';

/**
 * The store a Node process uses: TOOLGATE_STORE, default sqlite (a file under the data folder,
 * or TOOLGATE_SQLITE_PATH). The other adapters read their own variables.
 */
export function nodeStoreFromEnv(env: NodeJS.ProcessEnv, dataDir: string): Store {
  const kind = storeKindFromEnv(env, 'sqlite');
  if (kind === 'sqlite') return new SqliteStore(env.TOOLGATE_SQLITE_PATH || join(dataDir, 'toolgate.db'));
  return remoteStoreFromEnv(kind, env, 'Node');
}
