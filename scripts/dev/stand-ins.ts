import { resolve } from 'node:path';
import { demoKeyLines, demoKeys } from '../../lib/cli/demo-key.ts';
import { localExecAccess } from '../../lib/cli/local-exec-access.ts';
import { startLocalExecServer, type LocalExecServer } from '../../lib/cli/local-exec-server.ts';
import { loadManifestFile } from '../../lib/cli/manifest-file.ts';
import { secretName } from '../../lib/crypto/secrets.ts';
import { toHex } from '../../lib/crypto/sha256.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { startRedisServer, type RedisServer } from './redis-server.ts';
import { startUpstashBridge, type UpstashBridge } from './upstash-bridge.ts';

const DEMO_MANIFEST = resolve(import.meta.dirname, '../../examples/demo/manifest.json');

/** What a runtime under `npm run dev:*` needs around it on this machine, and how to reach it. */
export interface DevStandIns {
  /** Variables for the runtime: the store, the exec-server, the demo key (plus the caller's TOOLGATE_* and SLACK_*). */
  env: Record<string, string>;
  demoKey: string;
  /** Lines telling the developer what runs where. */
  summary: string[];
  stop(): Promise<void>;
}

/**
 * The local stand-ins for what a deployed Worker or Deno Deploy app reaches over the network: a
 * redis-server behind the Upstash REST bridge (the store, emptied when it stops), and an
 * exec-server over ./workspace (TOOLGATE_WORKSPACE) for the demo's coding tools, started the way
 * `npm start` starts it. The demo keys are `npm start`'s: TOOLGATE_DEMO_KEY and
 * TOOLGATE_DEMO_ADMIN_KEY, or the ones kept in .toolgate/demo-key and demo-admin-key (TOOLGATE_DATA_DIR).
 */
export async function startDevStandIns(env: NodeJS.ProcessEnv): Promise<DevStandIns> {
  const demo = demoKeys(resolve(env.TOOLGATE_DATA_DIR ?? '.toolgate'), env);
  const started: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    for (const service of [...started].reverse()) await service.stop();
  };
  try {
    const manifest = readDemoManifest();
    const exec = await startLocalExecServer(manifest, env);
    if (exec) started.push({ stop: () => exec.close() });
    const redis = await startRedisServer();
    started.push(redis);
    const bridge = await startUpstashBridge({ redisUrl: redis.url, token: toHex(crypto.getRandomValues(new Uint8Array(16))) });
    started.push({ stop: () => bridge.close() });
    return {
      env: { ...passedThrough(env, manifest), ...storeEnv(bridge), ...(exec ? localExecAccess(manifest.tenant, exec, env) : {}), TOOLGATE_DEMO_KEY: demo.agent.key, TOOLGATE_DEMO_ADMIN_KEY: demo.admin.key },
      demoKey: demo.agent.key,
      summary: summary(exec, redis, bridge, demo),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readDemoManifest(): Manifest {
  const loaded = loadManifestFile(DEMO_MANIFEST);
  if (!loaded.ok) throw new Error(`${DEMO_MANIFEST} has problems: run \`npx toolgate manifest validate ${DEMO_MANIFEST}\``);
  return loaded.manifest;
}

/** Settings only this launcher reads: the runtime has no use for them. */
const LAUNCHER_ONLY = new Set(['TOOLGATE_DATA_DIR', 'TOOLGATE_WORKSPACE', 'TOOLGATE_EXEC_PORT', 'TOOLGATE_EXEC_EXTERNAL']);

/**
 * The developer's own gateway settings (Slack, the demo's channel, grants, ...) reach the runtime as
 * they would `npm start`, and so does the demo's exec secret (for an exec-server of their own).
 */
function passedThrough(env: NodeJS.ProcessEnv, manifest: Manifest): Record<string, string> {
  const execSecret = manifest.execution_environment ? secretName(manifest.execution_environment.secret) : undefined;
  const passes = (name: string) => (/^(TOOLGATE|SLACK)_/.test(name) && !LAUNCHER_ONLY.has(name)) || name === execSecret;
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => passes(entry[0]) && entry[1] !== undefined));
}

function storeEnv(bridge: UpstashBridge): Record<string, string> {
  return { TOOLGATE_STORE: 'upstash', UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token };
}

function summary(exec: LocalExecServer | undefined, redis: RedisServer, bridge: UpstashBridge, demo: ReturnType<typeof demoKeys>): string[] {
  return [
    `tenant "demo" (examples/demo/manifest.json)`,
    exec
      ? `coding tools: exec-server ${exec.url} over ${exec.root}`
      : 'coding tools: TOOLGATE_EXEC_EXTERNAL=1, so TOOLGATE_DEMO_EXEC_URL names the exec-server (grant its secret DEMO_EXEC_SECRET with TOOLGATE_TENANT_SECRETS=demo:DEMO_EXEC_SECRET, and allow its address in TOOLGATE_EGRESS_ALLOW)',
    `store: upstash, the Upstash REST bridge ${bridge.url} in front of redis-server ${redis.url} (in memory: emptied when this stops)`,
    ...demoKeyLines(demo),
  ];
}
