import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeKindFromEnv } from '../../lib/stores/config.ts';
import { freePort, runNode, spawnNode } from '../helpers/processes.ts';
import { startRedisServer } from '../../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../../scripts/dev/upstash-bridge.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-storecfg-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const base = { TOOLGATE_DATA_DIR: dataDir, TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, 'workspace'), PORT: '0' };

describe('choosing the store from the environment', () => {
  it('rejects an unknown TOOLGATE_STORE', () => {
    expect(() => storeKindFromEnv({ TOOLGATE_STORE: 'redis' }, 'sqlite')).toThrow('TOOLGATE_STORE="redis" is not a store: set it to one of sqlite, upstash, dynamodb, memory');
    expect(storeKindFromEnv({}, 'sqlite')).toBe('sqlite');
  });

  it('refuses to start when a variable is missing, naming it and how to set it', async () => {
    const upstash = await runNode(['bin/toolgate.js', 'serve'], { env: { ...base, TOOLGATE_STORE: 'upstash' } });
    expect(upstash.code).toBe(1);
    expect(upstash.stderr).toMatch(/UPSTASH_REDIS_REST_URL is not set: set it to your Upstash database's REST URL/);
    const dynamo = await runNode(['bin/toolgate.js', 'serve'], { env: { ...base, TOOLGATE_STORE: 'dynamodb', TOOLGATE_DYNAMODB_TABLE: '', AWS_REGION: 'eu-west-1' } });
    expect(dynamo.code).toBe(1);
    expect(dynamo.stderr).toMatch(/TOOLGATE_DYNAMODB_TABLE is not set/);
  });

  it('serves on Upstash when configured (a real redis-server behind the REST bridge)', async () => {
    const redis = await startRedisServer();
    const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'cfg-token' });
    const port = await freePort();
    const gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { ...base, PORT: String(port), TOOLGATE_STORE: 'upstash', UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: 'cfg-token', TOOLGATE_DEMO_KEY: 'cfg-key' } });
    try {
      await gateway.waitFor(/toolgate listening/);
      expect(gateway.output()).toContain('store: upstash');
      const response = await fetch(`http://127.0.0.1:${port}/v1/dispatch`, { method: 'POST', headers: { authorization: 'Bearer cfg-key' }, body: JSON.stringify({ thread_id: 'cfg', calls: [{ call_id: 'a', name: 'echo', arguments: { text: 'on redis' } }] }) });
      expect((await response.json()).results[0]).toMatchObject({ status: 'ok', content: 'on redis' });
      expect(bridge.requests.length).toBeGreaterThan(2);
    } finally {
      await gateway.stop();
      await bridge.close();
      await redis.stop();
    }
  });
});
