/**
 * CPU time per request inside workerd, read from /proc around many requests.
 *
 * Why this way: the Workers CPU limit counts the isolate's CPU time, not wall time, and nothing
 * inside workerd reports it locally. So the whole workerd process is measured from outside:
 * utime + stime of /proc/<pid>/stat (every thread, in clock ticks, 10 ms each at USER_HZ 100)
 * before and after MEASURED sequential requests that follow WARMUP unmeasured ones (the JIT has
 * settled), divided by the count; a 10 ms tick over 3,000 requests is 0.003 ms per request.
 * The sum of the threads' schedstat run times (ns) is reported beside it as a cross-check.
 * The same is done for GET /healthz, the cheapest request: what workerd spends on any request
 * (HTTP parsing, Miniflare's entry worker routing it to ours), so dispatch minus healthz is
 * what the gateway's dispatch adds. The figure checked against the budget is the whole dispatch
 * figure, an upper bound of the isolate's own CPU time. The load generator (fetch) and the
 * Upstash bridge run in this Node process, not in workerd, so they are not counted.
 */
import { startRedisServer } from '../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../scripts/dev/upstash-bridge.ts';
import { DEMO_GRANTS, DEMO_KEY, dispatchRequest, expectDispatched, expectHealthy, healthzRequest } from './runtime-requests.ts';
import { sampleCpu, startWorkerd, ticksToMs, type Workerd } from './workerd.ts';

export const WARMUP = 500;
export const MEASURED = 3000;

export interface PerRequest {
  /** From utime + stime (/proc/<pid>/stat). */
  statMs: number;
  /** From the threads' schedstat run times. */
  schedstatMs: number;
  wallMs: number;
  /** Requests workerd sent the store per request (Upstash bridge's count); undefined for memory. */
  storeRequests: number | undefined;
}

export interface WorkerdCpu {
  dispatch: PerRequest;
  healthz: PerRequest;
  threads: number;
}

/** A store for the Worker: its bindings and, for a remote one, how many requests it received. */
export interface StoreBindings {
  bindings: Record<string, string>;
  requests?: () => number;
}

async function perRequest(workerd: Workerd, store: StoreBindings, send: () => Promise<void>): Promise<PerRequest> {
  for (let i = 0; i < WARMUP; i++) await send();
  const before = sampleCpu(workerd.pid);
  const requestsBefore = store.requests?.() ?? 0;
  const started = performance.now();
  for (let i = 0; i < MEASURED; i++) await send();
  const wallMs = performance.now() - started;
  const after = sampleCpu(workerd.pid);
  return {
    statMs: ticksToMs(after.ticks - before.ticks) / MEASURED,
    schedstatMs: (after.onCpuNs - before.onCpuNs) / 1e6 / MEASURED,
    wallMs: wallMs / MEASURED,
    storeRequests: store.requests ? (store.requests() - requestsBefore) / MEASURED : undefined,
  };
}

/** Dispatches, then health checks, on one workerd instance of `script`; stopped whatever happens. */
export async function measureWorkerdCpu(script: string, store: StoreBindings): Promise<WorkerdCpu> {
  const workerd = await startWorkerd({ scriptPath: script }, { ...store.bindings, TOOLGATE_DEMO_KEY: DEMO_KEY, ...DEMO_GRANTS });
  try {
    let sequence = 0;
    const dispatch = async () => {
      const n = ++sequence;
      await expectDispatched(await fetch(dispatchRequest(workerd.origin, n)), n);
    };
    const healthz = async () => expectHealthy(await fetch(healthzRequest(workerd.origin)));
    const dispatchFigures = await perRequest(workerd, store, dispatch);
    const healthzFigures = await perRequest(workerd, store, healthz);
    return { dispatch: dispatchFigures, healthz: healthzFigures, threads: sampleCpu(workerd.pid).threads };
  } catch (error) {
    throw new Error(`workerd CPU run failed: ${error instanceof Error ? error.message : String(error)}\nworkerd output (end):\n${workerd.output().slice(-4000)}`, { cause: error });
  } finally {
    await workerd.stop();
  }
}

export const MEMORY_STORE: StoreBindings = { bindings: { TOOLGATE_STORE: 'memory' } };

/** redis-server behind the Upstash REST bridge (the bridge in this process), torn down after `body`. */
export async function withUpstash<T>(body: (store: StoreBindings) => Promise<T>): Promise<T> {
  const redis = await startRedisServer();
  try {
    const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'bench-runtimes-token' });
    try {
      const bindings = { TOOLGATE_STORE: 'upstash', UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token };
      return await body({ bindings, requests: () => bridge.requests.length });
    } finally {
      await bridge.close();
    }
  } finally {
    await redis.stop();
  }
}
