/**
 * `npm run conformance [-- --json] [-- --failures]`: how both validation engines do on the
 * official JSON-Schema-Test-Suite (draft 2020-12), per keyword, required and optional apart.
 */
import { corpusExists, corpusRoot, ENGINES, loadRemotes, loadSuite, measureEngine, type EngineReport, type KeywordResult } from './conformance-lib.ts';

function table(rows: KeywordResult[]): string {
  const width = Math.max(7, ...rows.map((r) => r.keyword.length));
  const line = (a: string, b: string, c: string) => `  ${a.padEnd(width)}  ${b.padStart(6)}  ${c.padStart(6)}`;
  return [line('keyword', 'passed', 'failed'), ...rows.map((r) => line(r.keyword, String(r.passed), String(r.failed)))].join('\n');
}

function failureLines(rows: KeywordResult[]): string[] {
  return rows.flatMap((r) => r.failures.map((f) => `  ${r.keyword} / ${f.group}${f.test ? ` / ${f.test}` : ''}: ${f.reason}`));
}

function printReport(report: EngineReport, showFailures: boolean): void {
  const required = report.keywords.filter((k) => !k.optional);
  const optional = report.keywords.filter((k) => k.optional);
  console.log(`\n== ${report.engine}: required (tests/draft2020-12)`);
  console.log(table(required));
  console.log(`  total: ${report.required.passed} passed, ${report.required.failed} failed`);
  console.log(`\n== ${report.engine}: optional (tests/draft2020-12/optional)`);
  console.log(table(optional));
  console.log(`  total: ${report.optional.passed} passed, ${report.optional.failed} failed`);
  // Groups that did not compile are few and say the most; every failed test only on request.
  const lines = failureLines(report.keywords.map((k) => ({ ...k, failures: k.failures.filter((f) => showFailures || !f.test) })));
  if (lines.length > 0) console.log(`\n  ${showFailures ? 'failures' : 'groups that did not compile'}:\n${lines.join('\n')}`);
}

function main(args: string[]): number {
  if (!corpusExists()) {
    console.error(`corpus not found at ${corpusRoot}`);
    return 1;
  }
  const suite = loadSuite();
  const remotes = loadRemotes();
  const reports = ENGINES.map((engine) => measureEngine(engine, suite, remotes));
  if (args.includes('--json')) {
    console.log(JSON.stringify({ suite: 'JSON-Schema-Test-Suite draft2020-12', corpus: corpusRoot, engines: reports }));
    return 0;
  }
  for (const report of reports) printReport(report, args.includes('--failures'));
  console.log('\n(--failures lists every failed test; --json prints everything as one object)');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
