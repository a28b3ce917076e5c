/**
 * `catalog-publish`: a 10,000-tool catalog (bench/tool-search-corpus.ts: real MCP tool
 * definitions, about 13 MB of JSON) published as a user would, through POST /v1/admin/manifests
 * with gzip, on each store: the time it takes (the publish checks, the parts, the search index),
 * what the store then holds for the version (its record, its parts, its search index: JSON text,
 * gzipped above 64 KiB on DynamoDB), and a
 * new process's first dispatch on it (read back from SQLite, checked, runtime built, one call).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApiKey } from '../lib/governance/api-keys.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { manifestKey, manifestPartsPrefix } from '../lib/registry/manifest/manifest-store.ts';
import { searchIndexKey } from '../lib/search/stored-index.ts';
import { SqliteStore } from '../lib/stores/sqlite/sqlite-store.ts';
import { encodeJson } from '../lib/stores/dynamodb/json.ts';
import type { StateRecord, Store } from '../lib/stores/store.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { median } from './stats.ts';
import { STORE_ADAPTERS } from './store-adapters.ts';
import { catalogManifest } from './tool-search-corpus.ts';

const TOOLS = 10_000;
const COLD_RUNS = 7;
const TENANT = 'bench';
const TOOL = 'wayne_github_search_repositories';

interface Published {
  wall_ms: number;
  cpu_ms: number;
  stored_bytes: number;
  parts: number;
}

/** A record's bytes as its store holds them: JSON text (SQLite, Upstash); DynamoDB gzips a payload above 64 KiB (dynamodb/json.ts). */
async function recordBytes(adapter: string, record: StateRecord | undefined): Promise<number> {
  if (adapter !== 'dynamodb') return new TextEncoder().encode(JSON.stringify(record)).length;
  const payload = await encodeJson(record!.data, 'bench');
  return payload.B?.byteLength ?? new TextEncoder().encode(payload.S ?? '').length;
}

/** The bytes of a version's records: its record, its parts, its search index head and parts. */
async function storedBytes(store: Store, adapter: string, version: string): Promise<{ bytes: number; parts: number }> {
  const head = (await store.get(manifestKey(TENANT, version)))!;
  const parts = (head.data.parts as { parts: number }).parts;
  const index = (await store.get(searchIndexKey(TENANT, version)))!;
  const keys = [
    ...Array.from({ length: parts }, (_, i) => `${manifestPartsPrefix(TENANT, version, head.data.hash as string)}/${i}`),
    ...Array.from({ length: index.data.parts as number }, (_, i) => `${searchIndexKey(TENANT, version)}/${i}`),
  ];
  const records = await Promise.all(keys.map((key) => store.get(key)));
  const sizes = await Promise.all([head, index, ...records].map((record) => recordBytes(adapter, record)));
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  return { bytes, parts };
}

async function publishOn(store: Store, adapter: string, body: Uint8Array<ArrayBuffer>, version: string): Promise<Published> {
  await createApiKey(store, { tenant: TENANT, principal: 'ops', scopes: ['admin'] }, 'bench-ops');
  const gateway = createGateway({ store, env: {} });
  await gateway.ready;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await gateway.fetch(new Request('http://bench.test/v1/admin/manifests', { method: 'POST', body, headers: { authorization: 'Bearer bench-ops', 'content-type': 'application/json', 'content-encoding': 'gzip' } }));
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (response.status !== 201) throw new Error(`publish answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const activated = await gateway.fetch(new Request(`http://bench.test/v1/admin/manifests/${version}/activate`, { method: 'POST', headers: { authorization: 'Bearer bench-ops' } }));
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}`);
  const { bytes, parts } = await storedBytes(store, adapter, version);
  return { wall_ms: wall, cpu_ms: (used.user + used.system) / 1000, stored_bytes: bytes, parts };
}

interface ColdDispatch {
  read_ms: number;
  build_ms: number;
  dispatch_ms: number;
  total_ms: number;
  cpu_ms: number;
}

async function coldDispatches(body: Uint8Array<ArrayBuffer>): Promise<ColdDispatch[]> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-catalog-'));
  try {
    const file = join(dir, 'toolgate.db');
    const store = new SqliteStore(file);
    await publishOn(store, 'sqlite', body, 'catalog');
    await store.close();
    const script = new URL('./catalog-cold.ts', import.meta.url).pathname;
    const runs: ColdDispatch[] = [];
    for (let run = 0; run < COLD_RUNS; run++) {
      const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', script, file, TENANT, TOOL], { timeout: 120_000 });
      runs.push(JSON.parse(stdout) as ColdDispatch);
    }
    return runs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const catalogPublishBench: BenchModule = {
  name: 'catalog-publish',
  title: 'a 10,000-tool catalog published over HTTP (gzip) on each store; its stored size; a cold dispatch on it',
  async run(): Promise<Figures> {
    const text = JSON.stringify(catalogManifest(TOOLS, { tenant: TENANT, version: 'catalog' }));
    const body = new Uint8Array(gzipSync(text));
    const figures: Figures = { tools: TOOLS, manifest_mb: round(text.length / 1e6), gzip_body_mb: round(body.length / 1e6) };
    for (const adapter of STORE_ADAPTERS) {
      progress(`catalog-publish: publishing on ${adapter.name}`);
      const published = await adapter.use(({ store }) => publishOn(store, adapter.name, body, 'catalog'));
      figures[`${adapter.name}_publish_wall_ms`] = round(published.wall_ms);
      figures[`${adapter.name}_publish_cpu_ms`] = round(published.cpu_ms);
      figures[`${adapter.name}_stored_mb`] = round(published.stored_bytes / 1e6);
      figures.manifest_parts = published.parts;
    }
    progress(`catalog-publish: ${COLD_RUNS} cold dispatches in new processes (SQLite)`);
    const cold = await coldDispatches(body);
    const pick = (field: keyof ColdDispatch) => round(median(cold.map((run) => run[field])));
    return { ...figures, cold_read_ms: pick('read_ms'), cold_build_ms: pick('build_ms'), cold_dispatch_ms: pick('dispatch_ms'), cold_total_ms: pick('total_ms'), cold_cpu_median_ms: pick('cpu_ms') };
  },
};
