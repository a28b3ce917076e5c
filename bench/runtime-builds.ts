/**
 * The deployable artifacts the `runtimes` benchmark measures and runs: the Worker as
 * `wrangler deploy --dry-run` builds it, and the Lambda bundle as serverless-esbuild would
 * (the options in serverless.yml, as test/deploy/lambda-bundle.test.ts builds it).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildLambdaBundle as bundleLambdaInto } from '../test/deploy/serverless-config.ts';
import { REPO_ROOT, runNode } from '../test/helpers/processes.ts';

export interface BuiltArtifact {
  /** The file that runs (worker.js, lambda.mjs); its source map beside it is not counted. */
  file: string;
  rawBytes: number;
  /** zlib gzip at level 9: what a compressed upload of the script weighs at best. */
  gzipBytes: number;
  remove(): void;
}

export interface WorkerBuild extends BuiltArtifact {
  /** wrangler's own "Total Upload: … / gzip: …" line, in bytes; undefined when it was not printed. */
  wranglerUploadBytes: number | undefined;
  wranglerGzipBytes: number | undefined;
}

function sizes(file: string): { rawBytes: number; gzipBytes: number } {
  const bytes = readFileSync(file);
  return { rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
}

const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 * 1024 };

/** "Total Upload: 1340.75 KiB / gzip: 275.97 KiB" → both figures in bytes. */
export function parseWranglerUpload(output: string): { upload: number; gzip: number } | undefined {
  const match = /Total Upload: ([\d.]+) (B|KiB|MiB) \/ gzip: ([\d.]+) (B|KiB|MiB)/.exec(output);
  if (!match) return undefined;
  return { upload: Math.round(Number(match[1]) * UNITS[match[2]]), gzip: Math.round(Number(match[3]) * UNITS[match[4]]) };
}

/**
 * `wrangler deploy --dry-run` into a fresh folder under the repo's .wrangler/ (workerd refuses
 * source maps that point above the script's folder). No banner: it is what runs wrangler's
 * update check, a request to the npm registry, and the benchmark stays on loopback.
 */
export async function buildWorker(): Promise<WorkerBuild> {
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'bench-runtimes-'));
  const remove = () => rmSync(outDir, { recursive: true, force: true });
  const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
  const env = { WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CI: 'true' };
  const result = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env });
  if (result.code !== 0) {
    remove();
    throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  }
  const file = join(outDir, 'worker.js');
  const printed = parseWranglerUpload(result.stdout + result.stderr);
  return { file, ...sizes(file), wranglerUploadBytes: printed?.upload, wranglerGzipBytes: printed?.gzip, remove };
}

/** functions/lambda.ts bundled with serverless.yml's esbuild options, in a temp folder with no node_modules near it. */
export async function buildLambdaBundle(): Promise<BuiltArtifact> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-lambda-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const file = await bundleLambdaInto(dir);
    return { file, ...sizes(file), remove };
  } catch (error) {
    remove();
    throw error;
  }
}
