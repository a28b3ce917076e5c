import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConformanceUpstream } from '../../test/helpers/conformance-upstream.ts';
import { REPO_ROOT } from '../../test/helpers/processes.ts';
import { runSuite, type SuiteName, type SuiteRun } from './suite.ts';
import { startConformanceTenant } from './tenant.ts';

/**
 * One conformance run: the fixture upstream (test/helpers/conformance-upstream.ts), a gateway
 * whose tenant imports it, the auth proxy, and the suite against the tenant's /mcp; everything
 * started here is stopped here, and its folders removed (the results too, unless kept).
 */

/** The expected failures of the release suite against today's toolgate, each with its reason. */
export const BASELINE = join(REPO_ROOT, 'test/conformance/mcp-0.1.16.yml');

/** The release suite, every server scenario (pending ones too), judged against the baseline. */
export const RELEASE_ARGS = ['--suite', 'all', '--expected-failures', BASELINE];

/** The 2026 prerelease: the scenarios the 2026-07-28 revision requires. */
export const NEXT_ARGS = ['--requirements', '2026-07-28'];

export interface ConformanceOptions {
  suite: SuiteName;
  /** Arguments for `conformance server` besides --url and -o. */
  args: string[];
  /** The longest the suite may run (default 300 s). */
  seconds?: number;
  /** Keep the per-scenario results (checks.json) in this folder. */
  resultsDir?: string;
}

export interface ConformanceReport extends SuiteRun {
  /** What `toolgate manifest publish` said (how many tools it pinned). */
  published: string;
}

export async function runMcpConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-mcp-conformance-'));
  const dataDir = join(root, 'data');
  const resultsDir = options.resultsDir ?? join(root, 'results');
  mkdirSync(dataDir);
  const upstream = await startConformanceUpstream();
  try {
    const tenant = await startConformanceTenant(upstream.url, dataDir);
    try {
      const run = await runSuite(options.suite, tenant.mcpUrl, options.args, resultsDir, options.seconds ?? 300);
      return { ...run, published: tenant.published };
    } finally {
      await tenant.stop();
    }
  } finally {
    await upstream.close();
    rmSync(root, { recursive: true, force: true });
  }
}
