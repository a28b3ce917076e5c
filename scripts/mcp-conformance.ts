/**
 * `npm run conformance:mcp [-- --scenario <name>] [-- --results <dir>] [-- --next] [-- --verbose]`:
 * the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, every server
 * scenario) against a toolgate tenant that imports the suite's reference server (our fixture:
 * test/helpers/conformance-upstream.ts), through `toolgate serve` and a loopback auth proxy.
 * Prints each scenario's checks, and passes exactly when the failing scenarios are the ones
 * test/conformance/mcp-0.1.16.yml expects (each listed there with its reason).
 * `--next` runs the 2026 prerelease (npm alias @modelcontextprotocol/conformance-next) with
 * `--requirements 2026-07-28` instead: informational, no baseline.
 */
import { BASELINE, NEXT_ARGS, RELEASE_ARGS, runMcpConformance } from './mcp-conformance/run.ts';
import { failing, readBaseline, type ScenarioOutcome } from './mcp-conformance/suite.ts';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

function line(outcome: ScenarioOutcome, expected: boolean): string {
  const mark = failing(outcome) ? (expected ? '~' : '✗') : '✓';
  const counts = `${outcome.passed} passed, ${outcome.failed} failed, ${outcome.warnings} warnings`;
  return `  ${mark} ${outcome.scenario.padEnd(34)} ${counts}${expected ? '  (expected failure)' : ''}`;
}

async function main(): Promise<number> {
  const next = process.argv.includes('--next');
  const scenario = option('--scenario');
  // One scenario of the prerelease runs at the 2026-07-28 wire (its requirement set cannot be narrowed).
  const args = next ? (scenario ? ['--spec-version', '2026-07-28'] : [...NEXT_ARGS]) : [...RELEASE_ARGS];
  if (scenario) args.push('--scenario', scenario);
  const report = await runMcpConformance({ suite: next ? 'next' : 'release', args, resultsDir: option('--results') });
  if (process.argv.includes('--verbose')) console.log(report.output);
  const expected = new Set(next ? [] : readBaseline(BASELINE));
  console.log(report.published.trim());
  console.log(`\n${next ? 'conformance 0.2.0 prerelease, --requirements 2026-07-28 (informational)' : `conformance 0.1.16, baseline ${BASELINE}`}:`);
  for (const outcome of report.scenarios) {
    console.log(line(outcome, expected.has(outcome.scenario)));
    if (failing(outcome)) for (const problem of outcome.problems.slice(0, 3)) console.log(`      ${problem.slice(0, 240)}`);
  }
  const failed = report.scenarios.filter(failing);
  console.log(`\n${report.scenarios.length} scenarios: ${report.scenarios.length - failed.length} pass, ${failed.length} fail`);
  if (!next) {
    const unexpected = failed.filter((o) => !expected.has(o.scenario)).map((o) => o.scenario);
    const stale = [...expected].filter((name) => report.scenarios.some((o) => o.scenario === name && !failing(o)));
    if (unexpected.length > 0) console.log(`unexpected failures (not in the baseline): ${unexpected.join(', ')}`);
    if (stale.length > 0) console.log(`now passing (remove from the baseline): ${stale.join(', ')}`);
    console.log(report.code === 0 ? 'baseline check passed' : `baseline check failed (suite exit code ${report.code})`);
  }
  return report.code ?? 1;
}

process.exitCode = await main();
