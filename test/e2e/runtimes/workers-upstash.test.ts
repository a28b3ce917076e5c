import { startRedisServer, type RedisServer } from '../../../scripts/dev/redis-server.ts';
import { startUpstashBridge, type UpstashBridge } from '../../../scripts/dev/upstash-bridge.ts';
import { runtimeScenarios } from './scenarios.ts';
import { openWorker } from './workers.ts';

/** Cloudflare Workers on Upstash: the wrangler-built Worker in workerd, state in redis-server behind the Upstash REST bridge. */
runtimeScenarios('Workers on Upstash', async (fixtures) => {
  let redis: RedisServer | undefined;
  let bridge: UpstashBridge | undefined;
  const stopStore = async () => {
    await bridge?.close();
    await redis?.stop();
  };
  try {
    redis = await startRedisServer();
    bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'e2e-workers-upstash-token' });
    const worker = await openWorker(fixtures, { TOOLGATE_STORE: 'upstash', UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token });
    return {
      fetch: worker.fetch,
      stop: async () => {
        await worker.stop();
        await stopStore();
      },
    };
  } catch (error) {
    await stopStore();
    throw error;
  }
});
