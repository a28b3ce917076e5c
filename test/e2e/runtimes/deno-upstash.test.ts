import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DENO_BIN, denoProcessEnv, denoRunArgs } from '../../../scripts/dev/deno-command.ts';
import { startRedisServer } from '../../../scripts/dev/redis-server.ts';
import { startUpstashBridge } from '../../../scripts/dev/upstash-bridge.ts';
import { freePort, REPO_ROOT, spawnProcess } from '../../helpers/processes.ts';
import { httpTarget } from './http-target.ts';
import { runtimeScenarios } from './scenarios.ts';

/** Deno on Upstash: functions/deno.ts run by the `deno` npm package, state in redis-server behind the Upstash REST bridge. */
runtimeScenarios('Deno on Upstash', async (fixtures) => {
  const redis = await startRedisServer();
  const bridge = await startUpstashBridge({ redisUrl: redis.url, token: 'e2e-deno-upstash-token' });
  const denoDir = mkdtempSync(join(tmpdir(), 'toolgate-e2e-deno-'));
  const port = await freePort();
  const env = { ...fixtures.env, ...denoProcessEnv(denoDir), TOOLGATE_STORE: 'upstash', UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token, PORT: String(port), HOST: '127.0.0.1' };
  const deno = spawnProcess(DENO_BIN, denoRunArgs(), { env, cwd: REPO_ROOT });
  const stop = async () => {
    await deno.stop();
    await bridge.close();
    await redis.stop();
    rmSync(denoDir, { recursive: true, force: true });
  };
  try {
    await deno.waitFor(/toolgate listening on http:\/\/127\.0\.0\.1:\d+ \(Deno, store upstash\)/, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...httpTarget(`http://127.0.0.1:${port}`), stop };
});
