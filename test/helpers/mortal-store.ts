import { StoreUnavailableError, type Store } from '../../lib/stores/store.ts';

/** Which store call kills the process (method name and arguments). */
export type DeathCondition = (method: string, args: unknown[]) => boolean;

/**
 * The store as one process sees it, for simulating that process dying: once `die()` is called, or
 * once a call matches `when` (that call included), every call fails and nothing more is stored.
 * Another process (another router or gateway on the store itself) carries on.
 */
export function mortalStore(store: Store, when: DeathCondition = () => false) {
  let dead = false;
  const view = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!dead && when(String(property), args)) dead = true;
        if (dead) return Promise.reject(new StoreUnavailableError(target.name, 'the process died'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: view, die: () => { dead = true; } };
}

/** The commit that marks a call executing: dying there means its side effect never started. */
export const atExecutingCommit: DeathCondition = (method, args) =>
  method === 'commit' && (args[0] as { record?: { next?: { state?: string } | null } }).record?.next?.state === 'executing';
