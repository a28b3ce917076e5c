/**
 * The two ways a 1,000-tool manifest reaches its first dispatch, each timed in parts (ms):
 * `stored` is what a new isolate or process does with the tenant's active manifest (its store
 * record's JSON text → the record says it passed this gateway's publish checks → tenant runtime →
 * first dispatch, which compiles that one tool's schema); `publish` runs the publish checks on the
 * JSON text first (every tool's schema lint, cost and patterns; executors, secrets) and builds
 * the runtime from the checked manifest, as a manifest that is not stored as checked needs.
 */
import type { ToolCall } from '../lib/dispatch/call.ts';
import type { CallerContext } from '../lib/dispatch/context.ts';
import { dispatchCall } from '../lib/dispatch/pipeline.ts';
import { StoreTenantDirectory } from '../lib/dispatch/store-tenant-directory.ts';
import { buildTenantRuntime, type GatewayServices } from '../lib/dispatch/tenant-runtime.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { MANIFEST_CHECKS } from '../lib/registry/manifest/checks.ts';
import { parseManifestText } from '../lib/registry/manifest/loader.ts';
import { activeManifestKey, manifestKey } from '../lib/registry/manifest/manifest-store.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { builtinsForUncheckedManifest } from '../lib/tools/tenant-tools.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { EngineName } from '../lib/validation/validator.ts';

export const TOOL_COUNT = 1000;
export type LoadPath = 'stored' | 'publish';

/** A store that keeps the manifest records as JSON text and parses them on every read, as a remote store (Upstash, DynamoDB) does. */
class TextRecordStore extends MemoryStore {
  readonly #texts = new Map<string, string>();

  putText(key: string, text: string): void {
    this.#texts.set(key, text);
  }

  override async get(key: string) {
    const text = this.#texts.get(key);
    return text === undefined ? super.get(key) : JSON.parse(text);
  }
}

export interface Split {
  /** stored: parse the record, read the stamp, build the runtime; publish: parse and check. */
  load: number;
  /** publish only: the tenant runtime from the checked manifest (stored: part of `load`). */
  build: number;
  dispatch: number;
  total: number;
  /** The process's CPU time over `total` (all threads: V8 compiles and collects garbage on helpers too). */
  cpu: number;
}

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

/** The store record publishing through the checks writes (lib/registry/manifest/manifest-store.ts), as JSON text. */
export function storedRecordText(manifestText: string): string {
  return `{"manifest":${manifestText},"hash":"bench","published_at":"2026-01-01T00:00:00.000Z","published_by":"bench","checked":"${MANIFEST_CHECKS}"}`;
}

const ENV = { BENCH_TOOL_SECRET: 's' };
const CALLER: CallerContext = { tenant: 'bench', principal: 'bench', scopes: new Set(), thread_id: 'bench', env: ENV };
/** The last tool is a builtin echo: its first call compiles its schema (lazily) and runs it. */
const FIRST_CALL: ToolCall = { call_id: 'first', name: toolName(TOOL_COUNT - 1), arguments: { text: 'hello' } };

/** The services a real gateway shares between tenants (store, audit, metrics), so the first dispatch does what it does in production. */
export function servicesFor(engine: EngineName, options: { tiered?: boolean } = {}): GatewayServices {
  const validator = engine === 'ajv' ? createAjvValidator({ tiered: options.tiered }) : createCfworkerValidator();
  return createGateway({ manifests: [], store: new MemoryStore(), env: ENV, validator }).services;
}

async function firstDispatch(services: GatewayServices, runtime: ReturnType<typeof buildTenantRuntime>): Promise<void> {
  const result = await dispatchCall(runtime.deps, CALLER, FIRST_CALL);
  if (result.status !== 'ok') throw new Error(`first dispatch failed: ${result.content}`);
}

/** JSON text → checked → tenant runtime → first dispatch. */
async function publishPath(services: GatewayServices, text: string): Promise<Split> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const loaded = parseManifestText(text, { validator: services.validator, kinds: services.kinds, builtins: builtinsForUncheckedManifest });
  if (!loaded.ok) throw new Error(`generated manifest rejected: ${JSON.stringify(loaded.problems.slice(0, 3))}`);
  const t1 = performance.now();
  const runtime = buildTenantRuntime(loaded.manifest, services);
  const t2 = performance.now();
  await firstDispatch(services, runtime);
  const t3 = performance.now();
  return { load: t1 - t0, build: t2 - t1, dispatch: t3 - t2, total: t3 - t0, cpu: cpuMs(cpu) };
}

/** The store's record text → the tenant directory (pointer, record, stamp, runtime) → first dispatch. */
async function storedPath(services: GatewayServices, text: string): Promise<Split> {
  const store = new TextRecordStore();
  const version = (JSON.parse(text) as Manifest).version;
  await store.put(activeManifestKey('bench'), { state: 'active', owner: version, expires_at: 0, data: { version, history: [], activated_at: '', activated_by: 'bench' } });
  store.putText(manifestKey('bench', version), `{"state":"published","expires_at":0,"data":${storedRecordText(text)}}`);
  const tenants = new StoreTenantDirectory(store, services);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const runtime = await tenants.runtime('bench');
  if (!runtime) throw new Error('the stored manifest did not load');
  const t1 = performance.now();
  await firstDispatch(services, runtime);
  const t2 = performance.now();
  return { load: t1 - t0, build: 0, dispatch: t2 - t1, total: t2 - t0, cpu: cpuMs(cpu) };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

export function measurePath(path: LoadPath, services: GatewayServices, text: string): Promise<Split> {
  return path === 'stored' ? storedPath(services, text) : publishPath(services, text);
}
