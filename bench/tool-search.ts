/**
 * `tool-search`: the tool search index (lib/search) over a 10,000-tool catalog made from real MCP
 * servers' tool definitions (bench/tool-search-corpus.ts). Budgets (issue 25): a search ≤ 1 ms
 * p99 in process, a cold load (new process: import, read the stored index, load, first query)
 * ≤ 50 ms, recall@5 ≥ 0.9 on the labelled queries (bench/fixtures/tool-search-queries.txt, one
 * intended tool each). Also: publish-time build, stored size and parts, a search filtered to
 * half the catalog (a caller without a scope), and recall on the 221 real tools alone.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildSearchIndex, SearchIndex, type PackedSearchIndex } from '../lib/search/bm25-index.ts';
import { searchDocument, ToolCatalog } from '../lib/search/catalog.ts';
import { PART_CHARS } from '../lib/search/stored-index.ts';
import type { ToolDefinition } from '../lib/registry/definition.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { distribution, median } from './stats.ts';
import { catalogDefinitions, catalogName, labelledQueries, realDefinitions, VENDORS, type LabelledQuery } from './tool-search-corpus.ts';

const TOOLS = 10_000;
const TIMED_ROUNDS = 20;
const COLD_RUNS = 9;
const P99_BUDGET_MS = 1;
const COLD_BUDGET_MS = 50;
const RECALL_BUDGET = 0.9;

interface Asked {
  text: string;
  want: string;
}

/** In the vendor catalog every tool exists once per vendor: a query names whose (query i: vendor i mod 45). */
function asked(queries: LabelledQuery[], vendored: boolean): Asked[] {
  return queries.map((q, i) => {
    const vendor = vendored ? VENDORS[i % VENDORS.length] : undefined;
    return { text: vendor ? `${vendor} ${q.query}` : q.query, want: catalogName(vendor, q.server, q.tool) };
  });
}

function recall(index: SearchIndex, queries: Asked[]): { at1: number; at5: number } {
  let at1 = 0;
  let at5 = 0;
  for (const { text, want } of queries) {
    const names = index.search(text, 5, () => true).map((hit) => hit.name);
    if (names[0] === want) at1++;
    if (names.includes(want)) at5++;
  }
  return { at1: round(at1 / queries.length), at5: round(at5 / queries.length) };
}

/**
 * Each query timed on its own, every query TIMED_ROUNDS times after one untimed round: wall
 * time, and the process's CPU time (ms samples). The machine is shared, so wall time includes
 * other processes' turns on the CPU; CPU time is the search's own cost (GC included).
 */
function timeQueries(search: (text: string) => unknown, queries: Asked[]): { wall: Float64Array; cpu: Float64Array } {
  let sink = 0;
  for (const { text } of queries) sink += Number(Boolean(search(text)));
  const wall = new Float64Array(queries.length * TIMED_ROUNDS);
  const cpu = new Float64Array(queries.length * TIMED_ROUNDS);
  let n = 0;
  for (let round = 0; round < TIMED_ROUNDS; round++) {
    for (const { text } of queries) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      sink += Number(Boolean(search(text)));
      wall[n] = performance.now() - start;
      const used = process.cpuUsage(cpuStart);
      cpu[n++] = (used.user + used.system) / 1000;
    }
  }
  if (sink < 0) progress('unreachable');
  return { wall, cpu };
}

/** Half the catalog needs a scope the caller lacks: the filter runs inside scoring. */
function halfScopedCatalog(packed: PackedSearchIndex, definitions: ToolDefinition[]): ToolCatalog {
  const scoped = definitions.map((d, i) => (i % 2 === 0 ? { ...d, scopes: ['crm'] } : d));
  const manifest = { tools: [], policy: {} } as unknown as Manifest;
  return new ToolCatalog(new SearchIndex(packed), scoped, manifest);
}

interface ColdLoad {
  total_ms: number;
  cpu_ms: number;
}

async function coldLoads(text: string, query: string): Promise<ColdLoad[]> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-search-'));
  const file = join(dir, 'index.json');
  try {
    await writeFile(file, text);
    const script = new URL('./tool-search-cold.ts', import.meta.url).pathname;
    const loads: ColdLoad[] = [];
    for (let run = 0; run < COLD_RUNS; run++) {
      const { stdout } = await promisify(execFile)(process.execPath, [script, file, query], { timeout: 60_000 });
      loads.push(JSON.parse(stdout) as ColdLoad);
    }
    return loads;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const toolSearchBench: BenchModule = {
  name: 'tool-search',
  title: 'tool search (BM25F) over 10,000 real MCP tool definitions: build, size, p99, cold load, recall@5',
  async run(): Promise<Figures> {
    const queries = labelledQueries();
    const definitions = catalogDefinitions(TOOLS);
    progress(`tool-search: building the index of ${definitions.length} tools`);
    const buildStart = performance.now();
    const packed = buildSearchIndex(definitions.map(searchDocument));
    const buildMs = performance.now() - buildStart;
    const text = JSON.stringify(packed);
    const manifestBytes = JSON.stringify(definitions).length;
    const index = new SearchIndex(packed);
    const vendored = asked(queries, true);
    const { at1, at5 } = recall(index, vendored);
    const real = recall(new SearchIndex(buildSearchIndex(realDefinitions().map(searchDocument))), asked(queries, false));
    progress('tool-search: timing queries');
    const plain = timeQueries((q) => index.search(q, 10, () => true), vendored);
    const [plainWall, plainCpu] = [distribution(plain.wall), distribution(plain.cpu)];
    const catalog = halfScopedCatalog(packed, definitions);
    const scopes = new Set<string>();
    const filtered = distribution(timeQueries((q) => catalog.search({ query: q, limit: 10, scopes }), vendored).cpu);
    progress(`tool-search: ${COLD_RUNS} cold loads in new processes`);
    const cold = await coldLoads(text, vendored[0].text);
    const coldCpu = median(cold.map((load) => load.cpu_ms));
    return {
      tools: definitions.length,
      labelled_queries: queries.length,
      manifest_definitions_mb: round(manifestBytes / 1e6),
      build_ms: round(buildMs),
      index_mb: round(text.length / 1e6),
      index_gzip_kb: round(gzipSync(text).length / 1024),
      stored_parts: Math.ceil(text.length / PART_CHARS),
      search_p50_cpu_ms: round(plainCpu.p50),
      search_p99_cpu_ms: round(plainCpu.p99),
      search_p99_cpu_verdict: verdict('p99 CPU', plainCpu.p99, '<=', P99_BUDGET_MS, ' ms'),
      search_p50_wall_ms: round(plainWall.p50),
      search_p99_wall_ms: round(plainWall.p99),
      filtered_search_p99_cpu_ms: round(filtered.p99),
      cold_load_cpu_median_ms: round(coldCpu),
      cold_load_cpu_verdict: verdict('median CPU', coldCpu, '<=', COLD_BUDGET_MS, ' ms'),
      cold_load_wall_median_ms: round(median(cold.map((load) => load.total_ms))),
      cold_load_wall_min_ms: round(Math.min(...cold.map((load) => load.total_ms))),
      recall_at_1: at1,
      recall_at_5: at5,
      recall_at_5_verdict: verdict('recall@5', at5, '>=', RECALL_BUDGET, ''),
      real_catalog_tools: realDefinitions().length,
      real_catalog_recall_at_1: real.at1,
      real_catalog_recall_at_5: real.at5,
    };
  },
};
