/**
 * `npm run conformance [-- --json] [-- --failures]`: how both validation engines do on the
 * official JSON-Schema-Test-Suite (drafts 2020-12 and 7), per keyword, required and optional
 * apart, and on how many tests the two engines' verdicts differ.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { corpusExists, corpusRoot, disagreements, ENGINES, loadRemotes, loadSuite, measureEngine, SUITE_DRAFTS, type Disagreement, type EngineReport, type KeywordResult, type SuiteDraft } from './conformance-lib.ts';

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
  const folder = SUITE_DRAFTS.find((d) => d.draft === report.draft)?.folder;
  console.log(`\n== ${report.engine}: required (tests/${folder})`);
  console.log(table(required));
  console.log(`  total: ${report.required.passed} passed, ${report.required.failed} failed`);
  console.log(`\n== ${report.engine}: optional (tests/${folder}/optional)`);
  console.log(table(optional));
  console.log(`  total: ${report.optional.passed} passed, ${report.optional.failed} failed`);
  // Groups that did not compile are few and say the most; every failed test only on request.
  const lines = failureLines(report.keywords.map((k) => ({ ...k, failures: k.failures.filter((f) => showFailures || !f.test) })));
  if (lines.length > 0) console.log(`\n  ${showFailures ? 'failures' : 'groups that did not compile'}:\n${lines.join('\n')}`);
}

interface DraftRun {
  draft: SuiteDraft;
  reports: EngineReport[];
  disagreements: Disagreement[];
}

function measureDraft(draft: SuiteDraft): DraftRun {
  const suite = loadSuite(draft);
  const remotes = loadRemotes(draft);
  const reports = ENGINES.map((engine) => measureEngine(engine, suite, remotes, draft.draft));
  return { draft, reports, disagreements: disagreements(suite, reports[0], reports[1]) };
}

/** "R required, O optional", and how many of them are on schemas the tool-schema lint accepts. */
function disagreementCounts(list: readonly Disagreement[]): string {
  const count = (l: readonly Disagreement[]) => `${l.filter((d) => !d.optional).length} required, ${l.filter((d) => d.optional).length} optional`;
  return `${count(list)} (on schemas the tool-schema lint accepts: ${count(list.filter((d) => d.lintAccepts))})`;
}

function printDisagreements(run: DraftRun, showAll: boolean): void {
  console.log(`\n== engines disagree (tests/${run.draft.folder}): ${disagreementCounts(run.disagreements)}`);
  // The ones that matter first: a schema the lint accepts reaches the engines in the product.
  const sorted = [...run.disagreements.filter((d) => d.lintAccepts), ...run.disagreements.filter((d) => !d.lintAccepts)];
  for (const d of sorted.slice(0, showAll ? undefined : 20)) {
    console.log(`  ${d.lintAccepts ? '' : '(lint refuses) '}${d.keyword} / ${d.group} / ${d.test}: ${ENGINES.map((e) => `${e} ${d.verdicts[e]}`).join(', ')}`);
  }
  if (!showAll && sorted.length > 20) console.log(`  ... and ${sorted.length - 20} more (--failures lists them all)`);
}

function printSummary(runs: DraftRun[]): void {
  console.log('\n== summary (passed/total)');
  for (const run of runs) {
    const cells = run.reports.map((r) => `${r.engine} required ${r.required.passed}/${r.required.passed + r.required.failed}, optional ${r.optional.passed}/${r.optional.passed + r.optional.failed}`);
    console.log(`  ${run.draft.folder}: ${cells.join('; ')}; disagreements: ${disagreementCounts(run.disagreements)}`);
  }
}

function main(args: string[]): number {
  if (!corpusExists()) {
    console.error(`corpus not found at ${corpusRoot}`);
    return 1;
  }
  const drafts = SUITE_DRAFTS.filter((d) => existsSync(join(corpusRoot, 'tests', d.folder)));
  const runs = drafts.map(measureDraft);
  if (args.includes('--json')) {
    console.log(JSON.stringify({ suite: 'JSON-Schema-Test-Suite', corpus: corpusRoot, drafts: runs.map((r) => ({ folder: r.draft.folder, engines: r.reports, disagreements: r.disagreements })) }));
    return 0;
  }
  for (const run of runs) {
    for (const report of run.reports) printReport(report, args.includes('--failures'));
    printDisagreements(run, args.includes('--failures'));
  }
  printSummary(runs);
  console.log('\n(--failures lists every failed test and disagreement; --json prints everything as one object)');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
