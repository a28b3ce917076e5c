import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionEnvironment } from '../lib/exec/environment.ts';
import { compilePattern, findFiles, grepFiles, skipUsualFolders } from '../lib/exec/local-search.ts';
import { grepTool } from '../lib/tools/coding/grep.ts';
import { toolContext, withExecPair } from './exec-fixtures.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round } from './harness.ts';
import { median } from './stats.ts';

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const FILES = FOLDERS * FILES_PER_FOLDER;
/** Every 20th file holds one matching line: 500 matches, under max_results, so every file is read. */
const MATCH_EVERY = 20;
const EXPECTED_MATCHES = FILES / MATCH_EVERY;
const MAX_RESULTS = 1000;
/** Each run reads the whole tree (seconds here), so few runs. */
const RUNS = 3;
/** A real regex; the near misses (`TODO: tidy`) make the engine do more than a literal scan. */
const PATTERN = 'TODO\\(bench-[0-9]+\\)';

/** About 300 bytes of plausible source; the matching line, if any, sits in the middle. */
function fileText(n: number): string {
  const marker = n % MATCH_EVERY === 0 ? `  // TODO(bench-${n}): replace the placeholder` : '  // TODO: tidy this up later';
  return [
    `import { helper } from '../shared/helper-${n % 7}.ts';`,
    '',
    `export function handler${n}(input: string): string {`,
    marker,
    `  const value = helper(input, ${n});`,
    `  return \`result \${value} for file ${n} of the generated tree\`;`,
    '}',
    '',
  ].join('\n');
}

/** Written a folder at a time (100 concurrent writes): quick, without exhausting file handles. */
async function writeTree(root: string): Promise<number> {
  let bytes = 0;
  for (let folder = 0; folder < FOLDERS; folder++) {
    const dir = join(root, `pkg-${String(folder).padStart(2, '0')}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: FILES_PER_FOLDER }, (_, i) => {
        const text = fileText(folder * FILES_PER_FOLDER + i);
        bytes += Buffer.byteLength(text);
        return writeFile(join(dir, `file-${String(i).padStart(3, '0')}.ts`), text);
      }),
    );
  }
  return bytes;
}

/** One way of running the search; answers the number of matches it found. */
interface Variant {
  name: string;
  search(): Promise<number>;
}

/**
 * A warm-up round (file cache, JIT), then RUNS rounds, each running every variant once: the
 * search is bound on the file system, so load from elsewhere drifts; interleaving makes the
 * drift hit every variant alike. Every run's count is checked. Returns ms samples by variant.
 */
async function timeRounds(variants: readonly Variant[]): Promise<Map<string, number[]>> {
  const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
  for (let round = 0; round <= RUNS; round++) {
    for (const variant of variants) {
      const start = performance.now();
      const found = await variant.search();
      const elapsed = performance.now() - start;
      if (found !== EXPECTED_MATCHES) throw new Error(`${variant.name} found ${found} matches, expected ${EXPECTED_MATCHES}`);
      if (round > 0) samples.get(variant.name)?.push(elapsed);
    }
  }
  return samples;
}

/**
 * Where LocalExecutionEnvironment.grep spends its time: listing the tree (findFiles) vs reading
 * and matching the files (grepFiles), the two halves it is made of, timed apart into `split`.
 */
function splitLocal(root: string, split: { find: number[]; read: number[] }): () => Promise<number> {
  return async () => {
    const t0 = performance.now();
    const files = await findFiles(root, '', skipUsualFolders());
    const t1 = performance.now();
    const matches = await grepFiles(files, compilePattern(PATTERN, false), MAX_RESULTS);
    split.find.push(t1 - t0);
    split.read.push(performance.now() - t1);
    if (files.length !== FILES) throw new Error(`findFiles saw ${files.length} files, expected ${FILES}`);
    return matches.length;
  };
}

const viaEnvironment = (env: ExecutionEnvironment) => async () => (await env.grep(PATTERN, '.', { max_results: MAX_RESULTS })).length;

/** The tool answers `path:line:text` lines; more matches than asked for would add a note. */
function viaTool(env: ExecutionEnvironment): () => Promise<number> {
  const tool = grepTool(env);
  return async () => {
    const output = await tool.execute({ pattern: PATTERN, path: '.', max_results: MAX_RESULTS }, toolContext());
    if (typeof output !== 'string') throw new Error('grep tool answered with JSON, not text');
    return output.split('\n').filter((line) => /^pkg-\d+\/file-\d+\.ts:4:/.test(line)).length;
  };
}

/** The timed runs (the split's first entry is its warm-up round). */
const timed = (samples: number[] | undefined) => (samples ?? []).slice(-RUNS);
const medianOf = (samples: number[] | undefined) => round(median(timed(samples)));
/** Other load on the machine only ever adds time: the fastest run is the least disturbed one. */
const minOf = (samples: number[] | undefined) => round(Math.min(...timed(samples)));

export const grepBench: BenchModule = {
  name: 'grep',
  title: `grep of a regex over ${FILES.toLocaleString('en')} small files: LocalExecutionEnvironment in-process vs the grep tool over the exec RPC on loopback (ms, median of ${RUNS} interleaved rounds after a warm-up round)`,
  async run(): Promise<Figures> {
    let treeBytes = 0;
    return withExecPair('toolgate-bench-grep-', async (root) => void (treeBytes = await writeTree(root)), async ({ root, local, remote }) => {
      const split = { find: [] as number[], read: [] as number[] };
      const samples = await timeRounds([
        { name: 'local', search: viaEnvironment(local) },
        { name: 'remote', search: viaEnvironment(remote) },
        { name: 'tool', search: viaTool(remote) },
        { name: 'split', search: splitLocal(root, split) },
      ]);
      const localMs = medianOf(samples.get('local'));
      const toolMs = medianOf(samples.get('tool'));
      return {
        files: FILES,
        tree_bytes: treeBytes,
        matches: EXPECTED_MATCHES,
        matches_verified: 'yes (every run)',
        local_env_median_ms: localMs,
        local_env_min_ms: minOf(samples.get('local')),
        local_split_find_files_ms: medianOf(split.find),
        local_split_read_and_match_ms: medianOf(split.read),
        remote_env_median_ms: medianOf(samples.get('remote')),
        remote_env_min_ms: minOf(samples.get('remote')),
        tool_over_rpc_median_ms: toolMs,
        tool_over_rpc_min_ms: minOf(samples.get('tool')),
        tool_rpc_added_ms: round(toolMs - localMs),
      };
    });
  },
};
