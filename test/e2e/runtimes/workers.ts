import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { REPO_ROOT, runNode } from '../../helpers/processes.ts';
import type { RuntimeTarget, ScenarioFixtures } from './fixtures.ts';
import { httpTarget } from './http-target.ts';

/**
 * The Worker exactly as `wrangler deploy` would upload it, running in workerd (Miniflare) with
 * wrangler.toml's compatibility settings and [vars], then the fixtures' variables and the store's
 * on top (as secrets would be). Reached over HTTP on 127.0.0.1.
 *
 * Loopback: Miniflare routes the Worker's outbound fetch through a workerd network service that
 * allows "private" addresses (a superset of 127.0.0.0/8), so the exec-server, fake Slack, the
 * Upstash bridge and dynalite are reachable without configuring an outbound service.
 */
export async function openWorker(fixtures: ScenarioFixtures, storeBindings: Record<string, string>): Promise<RuntimeTarget> {
  const outDir = await buildWorker();
  const config = unstable_readConfig({ config: join(REPO_ROOT, 'wrangler.toml') });
  let output = '';
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(outDir, 'worker.js'),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    bindings: { ...stringVars(config.vars), ...fixtures.env, ...storeBindings },
    host: '127.0.0.1',
    // The Worker's JSON log lines, kept out of the test report like the other runtimes' output.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
      stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    },
  });
  const stop = async () => {
    await mf.dispose();
    rmSync(outDir, { recursive: true, force: true });
  };
  try {
    const url = await mf.ready;
    return { ...httpTarget(url.origin), stop };
  } catch (error) {
    await stop();
    throw new Error(`workerd did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`, { cause: error });
  }
}

/** `wrangler deploy --dry-run` into the repo's .wrangler/: workerd refuses source maps that point above the script's folder. */
async function buildWorker(): Promise<string> {
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'test-build-'));
  const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
  const build = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
  if (build.code !== 0) {
    rmSync(outDir, { recursive: true, force: true });
    throw new Error(`wrangler build failed:\n${build.stdout}\n${build.stderr}`);
  }
  return outDir;
}

function stringVars(vars: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}
