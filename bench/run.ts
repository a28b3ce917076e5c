/**
 * `npm run bench [-- --json] [-- --only name[,name]] [-- --list]`: runs the benchmark modules
 * and prints their figures. To add a benchmark, write `bench/<name>.ts` exporting a BenchModule
 * and list it in MODULES below.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { applyPatchBench } from './apply-patch.ts';
import { catalogPublishBench } from './catalog-publish.ts';
import { cliStartup } from './cli-startup.ts';
import { consoleBench } from './console.ts';
import { deployedThroughput } from './deployed-throughput.ts';
import { dispatchOverhead } from './dispatch-overhead.ts';
import { execResources } from './exec-resources.ts';
import { execRpc } from './exec-rpc.ts';
import { execSandbox } from './exec-sandbox.ts';
import { globBench } from './glob.ts';
import { grepBench } from './grep.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, VERDICT_SUFFIX } from './harness.ts';
import { httpThroughput } from './http-throughput.ts';
import { limitsBench } from './limits.ts';
import { manifestLoad } from './manifest-load.ts';
import { mcpBench } from './mcp.ts';
import { patternsBench } from './patterns.ts';
import { runtimesBench } from './runtimes.ts';
import { schemaCostBench } from './schema-cost.ts';
import { shellClassifier } from './shell-classifier.ts';
import { storesBench } from './stores.ts';
import { toolSearchBench } from './tool-search.ts';
import { tracingCost } from './tracing-cost.ts';
import { validationCost } from './validation-cost.ts';
import { validationWorstCase } from './validation-worst-case.ts';
import { workerEdge } from './worker-edge.ts';

// One per line, so branches that add a module do not collide.
const MODULES: BenchModule[] = [
  dispatchOverhead,
  tracingCost,
  validationCost,
  validationWorstCase,
  schemaCostBench,
  httpThroughput,
  mcpBench,
  deployedThroughput,
  manifestLoad,
  applyPatchBench,
  grepBench,
  globBench,
  patternsBench,
  execRpc,
  execResources,
  execSandbox,
  shellClassifier,
  storesBench,
  limitsBench,
  runtimesBench,
  workerEdge,
  consoleBench,
  cliStartup,
  toolSearchBench,
  catalogPublishBench,
];

interface Report {
  node: string;
  platform: string;
  cpus: string;
  /** Other work on the machine skews the figures (the http ones most): 1, 5, 15 min at start. */
  load_average: string;
  started_at: string;
  modules: Record<string, Figures | { error: string }>;
  /** `module.key` of every budget verdict that failed; a miss never changes the exit code. */
  budgets_missed: string[];
}

function selectModules(only: string[] | undefined): BenchModule[] {
  if (!only || only.length === 0) return MODULES;
  const wanted = only.flatMap((value) => value.split(',')).map((name) => name.trim());
  const unknown = wanted.filter((name) => !MODULES.some((m) => m.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark ${unknown.join(', ')}; known: ${MODULES.map((m) => m.name).join(', ')}\n`);
    process.exit(2);
  }
  return MODULES.filter((m) => wanted.includes(m.name));
}

function missedBudgets(name: string, figures: Figures): string[] {
  return Object.entries(figures)
    .filter(([key, value]) => key.endsWith(VERDICT_SUFFIX) && String(value).startsWith('FAIL'))
    .map(([key]) => `${name}.${key}`);
}

function printModule(module: BenchModule, figures: Figures | { error: string }): void {
  console.log(`\n== ${module.name}: ${module.title}`);
  const width = Math.max(...Object.keys(figures).map((key) => key.length));
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(width)}  ${value}`);
}

async function runModule(module: BenchModule): Promise<Figures | { error: string }> {
  try {
    return await module.run();
  } catch (error) {
    // A broken benchmark is a real failure (unlike a missed budget): report it and exit non-zero.
    process.exitCode = 1;
    return { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, only: { type: 'string', multiple: true }, list: { type: 'boolean' } } });
  if (values.list) {
    for (const m of MODULES) console.log(`${m.name.padEnd(20)} ${m.title}`);
    return;
  }
  const selected = selectModules(values.only);
  const cpuList = cpus();
  const report: Report = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: `${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'unknown'}`,
    load_average: loadavg().map((v) => v.toFixed(2)).join(' '),
    started_at: new Date().toISOString(),
    modules: {},
    budgets_missed: [],
  };
  if (!values.json) console.log(`toolgate benchmarks: node ${report.node}, ${report.platform}, ${report.cpus}, load average ${report.load_average}`);
  for (const module of selected) {
    progress(`running ${module.name}`);
    const figures = await runModule(module);
    report.modules[module.name] = figures;
    if (!('error' in figures)) report.budgets_missed.push(...missedBudgets(module.name, figures));
    if (!values.json) printModule(module, figures);
  }
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else console.log(`\nbudgets missed: ${report.budgets_missed.length === 0 ? 'none' : report.budgets_missed.join(', ')} (informational; the exit code ignores budgets)`);
}

await main();
