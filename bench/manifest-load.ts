import manifestSchema from '../schema/manifest.v1.json' with { type: 'json' };
import type { ToolCall } from '../lib/dispatch/call.ts';
import type { CallerContext } from '../lib/dispatch/context.ts';
import { dispatchCall } from '../lib/dispatch/pipeline.ts';
import { buildTenantRuntime, type GatewayServices } from '../lib/dispatch/tenant-runtime.ts';
import { createGateway } from '../lib/http/gateway.ts';
import type { JsonSchema } from '../lib/registry/json.ts';
import { parseManifestText } from '../lib/registry/manifest-loader.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { builtinsForUncheckedManifest } from '../lib/tools/tenant-tools.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../lib/validation/validator.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round, verdict } from './harness.ts';
import { median } from './stats.ts';

const TOOL_COUNT = 1000;
const WARM_RUNS = 15;
const BUDGET_TOTAL_MS = 50;

const toolName = (i: number) => `tool_${String(i).padStart(4, '0')}`;

/** Even tools are http, odd ones builtin echo; `run` makes every schema text distinct, so no run reuses another's work. */
function manifestTool(i: number, run: number) {
  const input_schema = {
    type: 'object',
    properties: {
      text: { type: 'string', description: `Text for tool ${i} (run ${run}).` },
      [`limit_${i}`]: { type: 'integer', minimum: 1, maximum: 100 + i },
      mode: { enum: [`fast_${i}`, `full_${i}`] },
    },
    required: ['text'],
    additionalProperties: false,
  };
  const executor = i % 2 === 0 ? { kind: 'http', url: `https://tools.example.com/run${run}/${i}`, secret: 'env:BENCH_TOOL_SECRET' } : { kind: 'builtin', name: 'echo' };
  return { name: toolName(i), description: `Generated tool ${i}.`, tier: 'read', input_schema, executor };
}

export function generateManifestText(count: number, run: number): string {
  const tools = Array.from({ length: count }, (_, i) => manifestTool(i, run));
  return JSON.stringify({ format: 'toolgate.manifest/v1', tenant: 'bench', version: `run-${run}`, profile: 'openai', policy: { read: 'grant' }, tools });
}

interface Split {
  load: number;
  build: number;
  dispatch: number;
  total: number;
}

const CALLER: CallerContext = { tenant: 'bench', principal: 'bench', scopes: new Set(), thread_id: 'bench', env: { BENCH_TOOL_SECRET: 's' } };
/** The last tool is a builtin echo: its first call compiles its schema (lazily) and runs it. */
const FIRST_CALL: ToolCall = { call_id: 'first', name: toolName(TOOL_COUNT - 1), arguments: { text: 'hello' } };

/** The services a real gateway shares between tenants (store, audit, metrics), so the first dispatch does what it does in production. */
function servicesFor(validator: SchemaValidator): GatewayServices {
  return createGateway({ manifests: [], store: new MemoryStore(), env: CALLER.env, validator }).services;
}

/** JSON text → checked manifest → tenant runtime → first dispatch, each part timed (ms). */
async function loadAndServe(services: GatewayServices, text: string): Promise<Split> {
  const t0 = performance.now();
  const loaded = parseManifestText(text, { validator: services.validator, kinds: services.kinds, builtins: builtinsForUncheckedManifest });
  if (!loaded.ok) throw new Error(`generated manifest rejected: ${JSON.stringify(loaded.problems.slice(0, 3))}`);
  const t1 = performance.now();
  const runtime = buildTenantRuntime(loaded.manifest, services);
  const t2 = performance.now();
  const result = await dispatchCall(runtime.deps, CALLER, FIRST_CALL);
  const t3 = performance.now();
  if (result.status !== 'ok') throw new Error(`first dispatch failed: ${result.content}`);
  return { load: t1 - t0, build: t2 - t1, dispatch: t3 - t2, total: t3 - t0 };
}

/** Compiling the 1,000 tool schemas alone: the share of load+check the loader spends compiling. */
function compileAllMs(validator: SchemaValidator, text: string): number {
  const tools = (JSON.parse(text) as { tools: { input_schema: JsonSchema }[] }).tools;
  const start = performance.now();
  for (const tool of tools) validator.compile(tool.input_schema);
  return performance.now() - start;
}

/** The loader's structural check alone: the manifest meta-schema (compiled beforehand) over the whole 1,000-tool document. */
function manifestSchemaCheckMs(validator: SchemaValidator, text: string): number {
  const check = validator.compile(manifestSchema);
  const value: unknown = JSON.parse(text);
  const start = performance.now();
  const outcome = check(value);
  const elapsed = performance.now() - start;
  if (!outcome.valid) throw new Error('generated manifest fails the manifest schema');
  return elapsed;
}

function splitFigures(prefix: string, split: Split): Figures {
  return {
    [`${prefix}_load_check_ms`]: round(split.load),
    [`${prefix}_build_ms`]: round(split.build),
    [`${prefix}_first_dispatch_ms`]: round(split.dispatch),
    [`${prefix}_total_ms`]: round(split.total),
  };
}

async function measureEngine(validator: SchemaValidator, runOffset: number): Promise<Figures> {
  const engine = validator.engine;
  const services = servicesFor(validator);
  // Cold: a fresh validator (its manifest meta-schema not yet compiled) and, under --only, a cold JIT.
  const cold = await loadAndServe(services, generateManifestText(TOOL_COUNT, runOffset));
  const warm: Split[] = [];
  for (let run = 1; run <= WARM_RUNS; run++) warm.push(await loadAndServe(services, generateManifestText(TOOL_COUNT, runOffset + run)));
  const typical: Split = {
    load: median(warm.map((s) => s.load)),
    build: median(warm.map((s) => s.build)),
    dispatch: median(warm.map((s) => s.dispatch)),
    total: median(warm.map((s) => s.total)),
  };
  return {
    ...splitFigures(`${engine}_cold`, cold),
    ...splitFigures(`${engine}_warm_median`, typical),
    // Where load+check goes: compiling every tool schema, and the structural check of the document.
    [`${engine}_compile_all_tool_schemas_ms`]: round(compileAllMs(validator, generateManifestText(TOOL_COUNT, runOffset + 999))),
    [`${engine}_manifest_schema_check_ms`]: round(manifestSchemaCheckMs(validator, generateManifestText(TOOL_COUNT, runOffset + 998))),
    [`${engine}_cold_verdict`]: verdict('cold total', cold.total, '<=', BUDGET_TOTAL_MS, ' ms'),
    [`${engine}_warm_verdict`]: verdict('warm median total', typical.total, '<=', BUDGET_TOTAL_MS, ' ms'),
  };
}

export const manifestLoad: BenchModule = {
  name: 'manifest-load',
  title: `Load + check a ${TOOL_COUNT.toLocaleString('en')}-tool manifest from JSON text, build the tenant runtime, serve the first dispatch (ms)`,
  async run() {
    return {
      tools: TOOL_COUNT,
      warm_runs: WARM_RUNS,
      ...(await measureEngine(createAjvValidator(), 0)),
      ...(await measureEngine(createCfworkerValidator(), 10_000)),
    };
  },
};
