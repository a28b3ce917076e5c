import { dynamoDbStoreFromEnv } from './dynamodb/config.ts';
import { MemoryStore } from './memory.ts';
import type { Store } from './store.ts';
import { upstashStoreFromEnv } from './upstash/config.ts';

export const STORE_KINDS = ['sqlite', 'upstash', 'dynamodb', 'memory'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

type Env = Readonly<Record<string, string | undefined>>;

/** TOOLGATE_STORE, checked; `fallback` when unset. */
export function storeKindFromEnv(env: Env, fallback: StoreKind): StoreKind {
  const value = env.TOOLGATE_STORE;
  if (value === undefined || value === '') return fallback;
  if ((STORE_KINDS as readonly string[]).includes(value)) return value as StoreKind;
  throw new Error(`TOOLGATE_STORE="${value}" is not a store: set it to one of ${STORE_KINDS.join(', ')}`);
}

/**
 * A store that needs no local file system (Workers, Lambda, Deno). Each adapter reads its own
 * variables and names any that is missing. `runtime` words the refusal of sqlite.
 */
export function remoteStoreFromEnv(kind: StoreKind, env: Env, runtime: string): Store {
  switch (kind) {
    case 'upstash':
      return upstashStoreFromEnv(env);
    case 'dynamodb':
      return dynamoDbStoreFromEnv({ ...env });
    case 'memory':
      return new MemoryStore();
    case 'sqlite':
      throw new Error(`TOOLGATE_STORE=sqlite needs a local file, which ${runtime} does not have: set TOOLGATE_STORE to upstash or dynamodb`);
  }
}
