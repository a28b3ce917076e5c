import { join } from 'node:path';
import manifestSchema from '../schema/manifest.v1.json' with { type: 'json' };
import type { JsonSchema } from '../lib/registry/json.ts';
import type { EngineName, SchemaValidator } from '../lib/validation/validator.ts';
import { runNode } from '../test/helpers/processes.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { generateManifestText, measurePath, servicesFor, TOOL_COUNT, type LoadPath, type Split } from './manifest-load-paths.ts';
import { median } from './stats.ts';

const COLD_ROUNDS = 5;
const WARM_RUNS = 15;
const BUDGET_TOTAL_MS = 50;
const ENGINES: EngineName[] = ['ajv', 'cfworker'];
const PATHS: LoadPath[] = ['stored', 'publish'];

/** One cold load in a new Node process (manifest-load-cold.ts). */
async function coldOnce(engine: EngineName, path: LoadPath, run: number, variant?: 'untiered'): Promise<Split> {
  const result = await runNode([join(import.meta.dirname, 'manifest-load-cold.ts'), engine, path, String(run), ...(variant ? [variant] : [])]);
  if (result.code !== 0) throw new Error(`cold ${engine} ${path} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as Split;
}

const medianSplit = (runs: Split[]): Split => ({
  load: median(runs.map((s) => s.load)),
  build: median(runs.map((s) => s.build)),
  dispatch: median(runs.map((s) => s.dispatch)),
  total: median(runs.map((s) => s.total)),
  cpu: median(runs.map((s) => s.cpu)),
});

function splitFigures(prefix: string, split: Split, path: LoadPath): Figures {
  return {
    [`${prefix}_load_ms`]: round(split.load),
    ...(path === 'publish' ? { [`${prefix}_build_ms`]: round(split.build) } : {}),
    [`${prefix}_first_dispatch_ms`]: round(split.dispatch),
    [`${prefix}_total_ms`]: round(split.total),
    [`${prefix}_total_cpu_ms`]: round(split.cpu),
  };
}

/** Round-robin over engines and paths, so drift on the machine hits each alike. */
async function coldFigures(): Promise<Figures> {
  const runs = new Map<string, Split[]>();
  // ajv without its eval-free first calls (tiered: false): what ajv's own first compile costs.
  const untiered: Split[] = [];
  for (let r = 1; r <= COLD_ROUNDS; r++) {
    for (const engine of ENGINES) {
      for (const path of PATHS) {
        progress(`manifest-load: cold ${engine} ${path} (${r}/${COLD_ROUNDS}, a new process)`);
        const key = `${engine}_${path}`;
        runs.set(key, [...(runs.get(key) ?? []), await coldOnce(engine, path, r)]);
      }
    }
    progress(`manifest-load: cold ajv stored, untiered (${r}/${COLD_ROUNDS}, a new process)`);
    untiered.push(await coldOnce('ajv', 'stored', r, 'untiered'));
  }
  const out: Figures = {};
  for (const engine of ENGINES) {
    for (const path of PATHS) {
      const list = runs.get(`${engine}_${path}`) ?? [];
      const typical = medianSplit(list);
      Object.assign(out, splitFigures(`${engine}_${path}_cold`, typical, path));
      out[`${engine}_${path}_cold_runs_ms`] = list.map((s) => s.total.toFixed(1)).join(' / ');
      if (path === 'stored') out[`${engine}_cold_verdict`] = `${verdict('stored manifest to first dispatch, new process', typical.total, '<=', BUDGET_TOTAL_MS, ' ms')}, median of ${COLD_ROUNDS}`;
    }
  }
  Object.assign(out, splitFigures('ajv_untiered_stored_cold', medianSplit(untiered), 'stored'));
  out.ajv_untiered_stored_cold_runs_ms = untiered.map((s) => s.total.toFixed(1)).join(' / ');
  return out;
}

/** The same in this process, after it has run: what a long-running gateway pays for a new version. */
async function warmFigures(engine: EngineName, path: LoadPath, runOffset: number): Promise<Figures> {
  const services = servicesFor(engine);
  const runs: Split[] = [];
  for (let run = 0; run <= WARM_RUNS; run++) runs.push(await measurePath(path, services, generateManifestText(TOOL_COUNT, runOffset + run)));
  return splitFigures(`${engine}_${path}_warm_median`, medianSplit(runs.slice(1)), path);
}

/** Compiling the 1,000 tool schemas alone: what loading does not do (each compiles on its tool's first call). */
function compileAllMs(validator: SchemaValidator, text: string): number {
  const tools = (JSON.parse(text) as { tools: { input_schema: JsonSchema }[] }).tools;
  const start = performance.now();
  for (const tool of tools) validator.compile(tool.input_schema);
  return performance.now() - start;
}

/** The publish check's structural part alone: the manifest meta-schema (compiled beforehand) over the whole document. */
function manifestSchemaCheckMs(validator: SchemaValidator, text: string): number {
  const check = validator.compile(manifestSchema);
  const value: unknown = JSON.parse(text);
  const start = performance.now();
  const outcome = check(value);
  const elapsed = performance.now() - start;
  if (!outcome.valid) throw new Error('generated manifest fails the manifest schema');
  return elapsed;
}

export const manifestLoad: BenchModule = {
  name: 'manifest-load',
  title: `A ${TOOL_COUNT.toLocaleString('en')}-tool manifest to its first dispatch, stored as checked and through the publish checks, per engine: cold (a new process each, median of ${COLD_ROUNDS}) and warm (ms)`,
  async run() {
    const figures: Figures = { tools: TOOL_COUNT, cold_rounds: COLD_ROUNDS, warm_runs: WARM_RUNS, ...(await coldFigures()) };
    let offset = 10_000;
    for (const engine of ENGINES) {
      for (const path of PATHS) Object.assign(figures, await warmFigures(engine, path, (offset += 100)));
      const validator = servicesFor(engine).validator;
      figures[`${engine}_compile_all_tool_schemas_ms`] = round(compileAllMs(validator, generateManifestText(TOOL_COUNT, (offset += 100))));
      figures[`${engine}_manifest_schema_check_ms`] = round(manifestSchemaCheckMs(validator, generateManifestText(TOOL_COUNT, (offset += 100))));
    }
    return figures;
  },
};
