import { MemoryStore } from '../../lib/stores/memory.ts';
import { openDynamoDbStore } from './dynalite.ts';
import { openSqliteStore, openUpstashStore, type RunningStore } from './store-fixtures.ts';

export const openMemoryStore = async (): Promise<RunningStore> => ({ store: new MemoryStore(), stop: async () => {} });

/** The four stores on their real backends, for `describe.each`: memory, a SQLite file, redis-server behind the Upstash bridge, dynalite. */
export const EVERY_STORE: Array<[string, () => Promise<RunningStore>]> = [
  ['memory', openMemoryStore],
  ['sqlite', openSqliteStore],
  ['upstash', openUpstashStore],
  ['dynamodb', openDynamoDbStore],
];
