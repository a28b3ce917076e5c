import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

/**
 * The Worker as wrangler builds it, running inside workerd: proves lib/ needs nothing Node-only
 * and that validation works where code generation is refused.
 */
describe('Cloudflare Worker in workerd', () => {
  // Inside the repo: workerd refuses source maps that point above the script's folder.
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'test-build-'));
  let mf: Miniflare;

  beforeAll(async () => {
    const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
    const build = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
    if (build.code !== 0) throw new Error(`wrangler build failed:\n${build.stdout}\n${build.stderr}`);
    mf = new Miniflare({ modules: true, scriptPath: join(outDir, 'worker.js'), compatibilityDate: '2026-04-01', bindings: { TOOLGATE_DEMO_KEY: 'worker-test-key', TOOLGATE_STORE: 'memory', TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET' } });
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('refuses to run without a store, or on SQLite, with a clear message', async () => {
    for (const [bindings, message] of [
      [{}, 'TOOLGATE_STORE is not set: on Cloudflare Workers set it to upstash or dynamodb'],
      [{ TOOLGATE_STORE: 'sqlite' }, 'TOOLGATE_STORE=sqlite needs a local file, which Cloudflare Workers does not have: set TOOLGATE_STORE to upstash or dynamodb'],
    ] as const) {
      const bare = new Miniflare({ modules: true, scriptPath: join(outDir, 'worker.js'), compatibilityDate: '2026-04-01', bindings });
      const response = await bare.dispatchFetch('http://worker/healthz');
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
      await bare.dispose();
    }
  });

  it('builds a bundle with wrangler', () => {
    expect(statSync(join(outDir, 'worker.js')).size).toBeGreaterThan(1000);
  });

  it('dispatches echo and validates with the eval-free engine', async () => {
    const response = await mf.dispatchFetch('http://worker/v1/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: 'w1', calls: [{ call_id: 'a', name: 'echo', arguments: { text: 'from workerd' } }, { call_id: 'b', name: 'echo', arguments: { text: 7 } }] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ status: string; content: string }> };
    expect(body.results[0]).toMatchObject({ status: 'ok', content: 'from workerd' });
    expect(body.results[1]).toMatchObject({ status: 'invalid_arguments', content: expect.stringContaining('`text` must be a string, got number 7') });
    const health = (await (await mf.dispatchFetch('http://worker/healthz')).json()) as { validator: string };
    expect(health.validator).toBe('cfworker');
  });
});
