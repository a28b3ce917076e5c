import { describe, expect, it } from 'vitest';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';
import { warmStart } from '../../lib/http/warm-start.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import type { Store } from '../../lib/stores/store.ts';

/** A store that counts every call made to it. */
function watchedStore(): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const inner = new MemoryStore();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Store;
  return { store, calls };
}

describe('the Worker\'s warm start (functions/worker.ts, at module scope)', () => {
  it('runs a call and a key check through the pipeline without touching the gateway\'s store, log or metrics', async () => {
    const { store, calls } = watchedStore();
    const lines: string[] = [];
    const gateway = createRuntimeGateway({ runtime: 'node', env: {}, manifests: [], store, log: (event) => lines.push(event) });
    const metricsBefore = gateway.services.metrics?.render();

    // Where timers and random values are allowed (here), the throwaway call runs to the end.
    expect(await warmStart(gateway.app, gateway.services)).toEqual({ call: 'ok', key: true });

    expect(calls).toEqual([]);
    expect(lines).toEqual([]);
    expect(gateway.services.metrics?.render()).toBe(metricsBefore);
    // The gateway itself is unchanged: its first real request works, and the warm-up tenant is not one of its tenants.
    const health = await gateway.fetch(new Request('http://127.0.0.1/healthz'));
    expect(health.status).toBe(200);
    expect(await gateway.tenants.runtime('toolgate-warm-up')).toBeUndefined();
  });
});
