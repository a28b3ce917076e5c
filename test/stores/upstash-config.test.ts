import { Redis as RedisClient } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstashStoreFromEnv } from '../../lib/stores/upstash/config.ts';
import { startRedisServer, type RedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge, type UpstashBridge } from '../../scripts/dev/upstash-bridge.ts';

describe('upstashStoreFromEnv', () => {
  const url = 'https://example-12345.upstash.io';

  it('names a missing variable and says where its value comes from and how to set it', () => {
    expect(() => upstashStoreFromEnv({ UPSTASH_REDIS_REST_TOKEN: 't' })).toThrow(
      /^UPSTASH_REDIS_REST_URL is not set: set it to your Upstash database's REST URL \(Upstash console → your database → REST API\).*export UPSTASH_REDIS_REST_URL=.*wrangler secret put UPSTASH_REDIS_REST_URL/,
    );
    expect(() => upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: url })).toThrow(/^UPSTASH_REDIS_REST_TOKEN is not set: .*not the Redis password.*wrangler secret put UPSTASH_REDIS_REST_TOKEN/);
  });

  it('refuses an empty value, a non-text binding, and a URL that is not http(s) (without echoing it)', () => {
    expect(() => upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: '  \n', UPSTASH_REDIS_REST_TOKEN: 't' })).toThrow(/^UPSTASH_REDIS_REST_URL is set but empty/);
    expect(() => upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: { binding: true } })).toThrow(/^UPSTASH_REDIS_REST_TOKEN is not text/);
    const misplaced = () => upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: 'AYNgAS2553feg6a2d9842', UPSTASH_REDIS_REST_TOKEN: 't' });
    expect(misplaced).toThrow(/^UPSTASH_REDIS_REST_URL is not an http\(s\) URL/);
    expect(misplaced).not.toThrow(/AYNgAS/);
  });

  describe('against redis-server behind the REST bridge', () => {
    let redis: RedisServer;
    let bridge: UpstashBridge;
    beforeAll(async () => {
      redis = await startRedisServer();
      bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'config-token' });
    });
    afterAll(async () => {
      await bridge?.close();
      await redis?.stop();
    });

    it('builds a working store, trims pasted newlines, and uses TOOLGATE_REDIS_PREFIX for its keys', async () => {
      const store = upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: `${bridge.url}\n`, UPSTASH_REDIS_REST_TOKEN: ' config-token\n', TOOLGATE_REDIS_PREFIX: 'cfg-test:' });
      expect(store.name).toBe('upstash');
      await store.put('k', { state: 'ok', expires_at: 0, data: {} });
      expect(await store.get('k')).toMatchObject({ state: 'ok' });
      const direct = new RedisClient(redis.url);
      try {
        expect(await direct.keys('*')).toEqual(['cfg-test:rec:k']);
      } finally {
        direct.disconnect();
      }
    });

    it('defaults the key prefix to toolgate:', async () => {
      const store = upstashStoreFromEnv({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: 'config-token' });
      await store.addToIndex('versions', 'v1', 1);
      const direct = new RedisClient(redis.url);
      try {
        expect(await direct.exists('toolgate:index:versions')).toBe(1);
      } finally {
        direct.disconnect();
      }
    });
  });
});
