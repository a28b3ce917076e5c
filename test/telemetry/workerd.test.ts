import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/**
 * The Worker as wrangler builds it, in workerd: its spans reach a loopback OTLP receiver through
 * waitUntil after the response (Workers run no timers between requests).
 */
describe('OpenTelemetry on Cloudflare Workers (workerd)', () => {
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'test-build-'));
  let mf: Miniflare;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
    const build = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
    if (build.code !== 0) throw new Error(`wrangler build failed:\n${build.stdout}\n${build.stderr}`);
    mf = new Miniflare({
      modules: true,
      scriptPath: join(outDir, 'worker.js'),
      compatibilityDate: '2026-04-01',
      bindings: { TOOLGATE_DEMO_KEY: 'worker-otel-test-key', TOOLGATE_STORE: 'memory', TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'toolgate-worker' },
    });
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    await receiver?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('exports the request\'s spans after the response, continuing the caller\'s traceparent', async () => {
    const response = await mf.dispatchFetch('http://worker/v1/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer worker-otel-test-key', 'content-type': 'application/json', traceparent: `00-${TRACE}-${PARENT}-01` },
      body: JSON.stringify({ thread_id: 'otel-w1', calls: [{ call_id: 'w-echo-1', name: 'echo', arguments: { text: 'from workerd' } }] }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results: { status: string }[] }).results[0]!.status).toBe('ok');
    await vi.waitFor(() => expect(receiver.spans().map((span) => span.name)).toContain('execute_tool echo'), { timeout: 15_000, interval: 50 });
    const spans = receiver.spans();
    const server = spans.find((span) => span.name === 'POST /v1/dispatch')!;
    const tool = spans.find((span) => span.name === 'execute_tool echo')!;
    expect(server).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, kind: 2 });
    expect(tool).toMatchObject({ traceId: TRACE, parentSpanId: server.spanId });
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': 'w-echo-1', 'toolgate.tenant': 'demo' });
    expect(receiver.resources()[0]).toMatchObject({ 'service.name': 'toolgate-worker' });
    // Times are real epoch nanoseconds (workerd has no performance.timeOrigin).
    expect(Number(BigInt(tool.startTimeUnixNano) / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);
  });
});
