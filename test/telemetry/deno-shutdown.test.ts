import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENO_BIN, denoProcessEnv, denoRunArgs } from '../../scripts/dev/deno-command.ts';
import { freePort, REPO_ROOT, spawnProcess } from '../helpers/processes.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const KEY = 'tg_deno_shutdown_0123456789abcdef0123';

/**
 * Deno exports spans in batches on a timer (OTEL_BSP_SCHEDULE_DELAY); a stop between two batches
 * must not lose the calls answered since the last one.
 */
describe('Deno: stopping the gateway exports the spans it still holds', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let denoDir: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    denoDir = mkdtempSync(join(tmpdir(), 'toolgate-deno-otel-'));
  });
  afterAll(async () => {
    await receiver?.close();
    rmSync(denoDir, { recursive: true, force: true });
  });

  it('SIGTERM right after a call: its execute_tool span reaches the collector, and the process exits 0', async () => {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      ...denoProcessEnv(denoDir),
      TOOLGATE_STORE: 'memory',
      TOOLGATE_DEMO_KEY: KEY,
      // The demo manifest names an exec secret; the operator grants it (no coding tool runs here).
      DEMO_EXEC_SECRET: 'deno-shutdown-exec-secret-0123456789abcdef',
      TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET',
      TOOLGATE_EGRESS_ALLOW: '127.0.0.1',
      PORT: String(port),
      HOST: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '600000', // no timed export during the test: only the stop can send it
    };
    const deno = spawnProcess(DENO_BIN, denoRunArgs(), { env, cwd: REPO_ROOT });
    try {
      await deno.waitFor(/toolgate listening on http:\/\/127\.0\.0\.1:\d+/, 60_000);
      const response = await fetch(`http://127.0.0.1:${port}/v1/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: 'deno-stop', calls: [{ call_id: 'call_1', name: 'echo', arguments: { text: 'hi' } }] }),
      });
      expect(response.status).toBe(200);
      expect(receiver.spans()).toEqual([]);
    } finally {
      await deno.stop();
    }
    expect(deno.child.exitCode).toBe(0);
    const span = receiver.spans().find((s) => s.name === 'execute_tool echo');
    expect(span?.attributes['gen_ai.tool.call.id']).toBe('call_1');
  }, 90_000);
});
