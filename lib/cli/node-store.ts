import { join } from 'node:path';
import { SqliteStore } from '../stores/sqlite.ts';
import type { Store } from '../stores/store.ts';

/**
 * The store a Node process uses: TOOLGATE_STORE (default sqlite, a file under the data folder,
 * or TOOLGATE_SQLITE_PATH). Remote stores read their own variables.
 */
export function nodeStoreFromEnv(env: NodeJS.ProcessEnv, dataDir: string): Store {
  const kind = env.TOOLGATE_STORE || 'sqlite';
  if (kind === 'sqlite') return new SqliteStore(env.TOOLGATE_SQLITE_PATH || join(dataDir, 'toolgate.db'));
  throw new Error(`TOOLGATE_STORE="${kind}" is not supported here yet`);
}
