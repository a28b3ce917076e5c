import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ExecutionEnvironment } from '../lib/exec/environment.ts';
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

/** The catastrophic pattern and a 30-character line it backtracks on for minutes in JavaScript. */
const REDOS_PATTERN = '(a+)+$';
const REDOS_LINE = `${'a'.repeat(29)}!`;
const REDOS_RUNS = 5;

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

/** ripgrep run directly with grep's flags: what LocalExecutionEnvironment.grep adds on top of it. */
function viaRipgrepDirectly(root: string): () => Promise<number> {
  const args = ['--no-config', '--no-ignore', '--hidden', '--no-follow', '--sort=path', '--with-filename', '--line-number', '--null', '--glob=!.git/', '--glob=!node_modules/', `--regexp=${PATTERN}`, '--', '.'];
  return () =>
    new Promise((resolve, reject) =>
      execFile('rg', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolve(stdout.split('\n').filter(Boolean).length))),
    );
}

/**
 * The grep of the catastrophic pattern through the exec RPC (the exec-server runs in this
 * process): how long it takes, and the longest the event loop was held meanwhile.
 */
async function redos(env: ExecutionEnvironment): Promise<{ grepMs: number; maxLoopDelayMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const times: number[] = [];
  delay.enable();
  for (let i = 0; i < REDOS_RUNS; i++) {
    const start = performance.now();
    const matches = await env.grep(REDOS_PATTERN, 'redos');
    times.push(performance.now() - start);
    if (matches.length !== 1) throw new Error(`the ReDoS grep found ${matches.length} matches, expected 1 (the line "aaaa")`);
  }
  delay.disable();
  return { grepMs: median(times), maxLoopDelayMs: delay.max / 1e6 };
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

/** The timed runs. */
const timed = (samples: number[] | undefined) => (samples ?? []).slice(-RUNS);
const medianOf = (samples: number[] | undefined) => round(median(timed(samples)));
/** Other load on the machine only ever adds time: the fastest run is the least disturbed one. */
const minOf = (samples: number[] | undefined) => round(Math.min(...timed(samples)));

export const grepBench: BenchModule = {
  name: 'grep',
  title: `grep (ripgrep) of a regex over ${FILES.toLocaleString('en')} small files: rg run directly vs LocalExecutionEnvironment in-process vs the grep tool over the exec RPC on loopback (ms, median of ${RUNS} interleaved rounds after a warm-up round)`,
  async run(): Promise<Figures> {
    let treeBytes = 0;
    const fill = async (root: string) => {
      treeBytes = await writeTree(root);
      await mkdir(join(root, 'redos'));
      await writeFile(join(root, 'redos', 'adversarial.txt'), `${REDOS_LINE}\naaaa\n`);
    };
    return withExecPair('toolgate-bench-grep-', fill, async ({ root, local, remote }) => {
      const samples = await timeRounds([
        { name: 'local', search: viaEnvironment(local) },
        { name: 'remote', search: viaEnvironment(remote) },
        { name: 'tool', search: viaTool(remote) },
        { name: 'rg', search: viaRipgrepDirectly(root) },
      ]);
      const attack = await redos(remote);
      const localMs = medianOf(samples.get('local'));
      const toolMs = medianOf(samples.get('tool'));
      return {
        files: FILES,
        tree_bytes: treeBytes,
        matches: EXPECTED_MATCHES,
        matches_verified: 'yes (every run)',
        local_env_median_ms: localMs,
        local_env_min_ms: minOf(samples.get('local')),
        ripgrep_directly_median_ms: medianOf(samples.get('rg')),
        remote_env_median_ms: medianOf(samples.get('remote')),
        remote_env_min_ms: minOf(samples.get('remote')),
        tool_over_rpc_median_ms: toolMs,
        tool_over_rpc_min_ms: minOf(samples.get('tool')),
        tool_rpc_added_ms: round(toolMs - localMs),
        redos_pattern: `${REDOS_PATTERN} on ${REDOS_LINE.length} chars (${REDOS_LINE.slice(0, 4)}…!)`,
        redos_grep_over_rpc_median_ms: round(attack.grepMs),
        redos_event_loop_max_delay_ms: round(attack.maxLoopDelayMs),
      };
    });
  },
};
