/**
 * `glob`: the review's glob patterns, which blocked the exec-server for minutes under Node's
 * path.matchesGlob (a backtracking RegExp), before and after. Before: path.matchesGlob in a child
 * process killed at BEFORE_CAP_MS, on inputs short enough to finish (each character more
 * multiplies the time; the review's own figures are in the keys' names). After: compileGlob (the
 * linear-time matcher) on the same inputs and on the review's full ones, then
 * LocalExecutionEnvironment.glob over a generated tree with the attacks and the costliest globs
 * the limits accept, with the event loop's longest stall meanwhile (the work runs in this process).
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ExecEnvironmentError } from '../lib/exec/environment.ts';
import { compileGlob, compileGlobFilter } from '../lib/exec/local/glob.ts';
import type { LocalExecutionEnvironment } from '../lib/exec/local/local-environment.ts';
import { withExecPair } from './exec-fixtures.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { median } from './stats.ts';

/** 35 characters; ~2 minutes on the demo workspace's `greet.sh` (8 characters) in the review. */
const EXTGLOB = '+(?|?|?|?|?|?|?|?|?|?|?|?|?|?|?|?)!';
/** 32 characters; 20.5 s on a 47-character path in the review. */
const STAR_CHAIN = `**/${'*?'.repeat(14)}!`;
const LONG_PATH = 'src/components/dashboard/widgets/chart-legend.ts';
/** The longest chain of its kind the program-size limit accepts is about 330 pairs. */
const LONGEST_CHAIN = `**/${'*?'.repeat(300)}!`;
/** "An `e` 900 characters before the end": sets of threads that never repeat (a DFA's worst case). */
const CACHE_DEFEATING = `**/*e${'?'.repeat(900)}`;
const BEFORE_CAP_MS = 15_000;
const AFTER_RUNS = 200;
const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const TREE_RUNS = 3;

/** path.matchesGlob's ms in a fresh node, or undefined when it was still running at the cap. */
function matchesGlobMs(path: string, pattern: string): Promise<number | undefined> {
  const script = "import { matchesGlob } from 'node:path'; const t = performance.now(); matchesGlob(process.argv[1], process.argv[2]); console.log(performance.now() - t);";
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, path, pattern], { timeout: BEFORE_CAP_MS }, (error, stdout) => {
      if (error?.killed) return resolve(undefined);
      if (error) return reject(error);
      resolve(Number(stdout.trim()));
    });
  });
}

/** Median µs of one match by an already compiled glob (compiling is timed apart). */
function afterUs(path: string, pattern: string, compile = compileGlob): { compileUs: number; matchUs: number; matched: boolean } {
  const start = performance.now();
  const glob = compile(pattern);
  const compileUs = (performance.now() - start) * 1000;
  const times: number[] = [];
  let matched = false;
  for (let i = 0; i < AFTER_RUNS; i++) {
    const t = performance.now();
    matched = glob.matches(path);
    times.push((performance.now() - t) * 1000);
  }
  return { compileUs, matchUs: median(times), matched };
}

/** ms until one match that would cost more than the matching budget is refused, and what it answered. */
function untilRefused(path: string, pattern: string): { ms: number; outcome: string } {
  const glob = compileGlob(pattern);
  const start = performance.now();
  try {
    return { ms: performance.now() - start, outcome: `answered ${glob.matches(path)}` };
  } catch (error) {
    if (!(error instanceof ExecEnvironmentError)) throw error;
    return { ms: performance.now() - start, outcome: `refused (${error.code})` };
  }
}

const beforeFigure = (ms: number | undefined) => (ms === undefined ? `> ${BEFORE_CAP_MS} (killed)` : round(ms));

/** Names that vary like a real tree's (no two alike), about 45 characters a path. */
async function writeTree(root: string): Promise<void> {
  for (let folder = 0; folder < FOLDERS; folder++) {
    const dir = join(root, 'src', `feature-${folder.toString(36)}-${(folder * 7919).toString(16)}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: FILES_PER_FOLDER }, (_, i) => writeFile(join(dir, `module-${((folder * FILES_PER_FOLDER + i) * 2654435761 >>> 0).toString(16)}-edge.ts`), '')),
    );
  }
  await writeFile(join(root, 'src', 'legend-notes-draft!'), '');
}

interface TreeFigures {
  medianMs: number;
  maxLoopDelayMs: number;
  outcome: string;
}

/** env.glob of one pattern over the tree, TREE_RUNS times: median ms, the longest event-loop stall, what it answered. */
async function overTree(env: LocalExecutionEnvironment, pattern: string): Promise<TreeFigures> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const times: number[] = [];
  let outcome = '';
  delay.enable();
  for (let i = 0; i < TREE_RUNS; i++) {
    const start = performance.now();
    try {
      outcome = `${(await env.glob(pattern, '.')).length} files`;
    } catch (error) {
      if (!(error instanceof ExecEnvironmentError)) throw error;
      outcome = `${error.code}: ${error.message.slice(0, 60)}…`;
    }
    times.push(performance.now() - start);
  }
  delay.disable();
  return { medianMs: round(median(times)), maxLoopDelayMs: round(delay.max / 1e6), outcome };
}

export const globBench: BenchModule = {
  name: 'glob',
  title: `the review's glob attacks: path.matchesGlob (before, ms, killed at ${BEFORE_CAP_MS} ms) vs compileGlob (after, µs); glob over ${(FOLDERS * FILES_PER_FOLDER + 1).toLocaleString('en')} files (ms, event-loop stall)`,
  async run(): Promise<Figures> {
    progress('glob: path.matchesGlob on the attacks (before), each in a child process');
    const before = {
      extglob5: await matchesGlobMs('abcde', EXTGLOB),
      extglob6: await matchesGlobMs('abcdef', EXTGLOB),
      chain24: await matchesGlobMs(`src/${'a'.repeat(20)}`, STAR_CHAIN),
      chain29: await matchesGlobMs(`src/${'a'.repeat(25)}`, STAR_CHAIN),
    };
    const extglobAfter = (() => {
      try {
        compileGlob(EXTGLOB);
        return 'accepted';
      } catch (error) {
        return error instanceof ExecEnvironmentError ? `refused (${error.code})` : 'threw';
      }
    })();
    const chain29 = afterUs(`src/${'a'.repeat(25)}`, STAR_CHAIN);
    const chain47 = afterUs(LONG_PATH, STAR_CHAIN);
    const chain4k = afterUs(`src/${'a'.repeat(4_000)}`, STAR_CHAIN);
    const filterOneFile = afterUs('chart-legend.ts', `${'*?'.repeat(14)}!`, compileGlobFilter);
    const longest = afterUs(LONG_PATH, LONGEST_CHAIN);
    const budgetStop = untilRefused(`src/${'ae'.repeat(2_000)}`, CACHE_DEFEATING);
    const tree = await withExecPair('toolgate-bench-glob-', writeTree, async ({ local }) => {
      progress('glob: env.glob over the tree');
      return {
        control: await overTree(local, '**/*.ts'),
        extglob: await overTree(local, EXTGLOB),
        chain: await overTree(local, STAR_CHAIN),
        longest: await overTree(local, LONGEST_CHAIN),
        cacheDefeating: await overTree(local, CACHE_DEFEATING),
      };
    });
    return {
      before_extglob_on_5_chars_ms: beforeFigure(before.extglob5),
      before_extglob_on_6_chars_ms: beforeFigure(before.extglob6),
      before_extglob_on_greet_sh_8_chars: 'about 2 minutes (review)',
      before_chain32_on_24_char_path_ms: beforeFigure(before.chain24),
      before_chain32_on_29_char_path_ms: beforeFigure(before.chain29),
      before_chain32_on_47_char_path: '20.5 s (review)',
      after_extglob: extglobAfter,
      after_chain32_on_29_char_path_match_us: round(chain29.matchUs),
      after_chain32_on_47_char_path_match_us: round(chain47.matchUs),
      after_chain32_on_4004_char_path_match_us: round(chain4k.matchUs),
      after_chain32_compile_us: round(chain47.compileUs),
      after_chain32_answers_correct: !chain29.matched && !chain47.matched && !chain4k.matched ? 'yes (no match)' : 'NO',
      after_glob_filter_one_file_match_us: round(filterOneFile.matchUs),
      after_chain300_on_47_char_path_match_us: round(longest.matchUs),
      after_chain300_compile_us: round(longest.compileUs),
      after_cache_defeating_on_4004_char_path_ms: round(budgetStop.ms),
      after_cache_defeating_on_4004_char_path_answer: budgetStop.outcome,
      tree_files: FOLDERS * FILES_PER_FOLDER + 1,
      tree_control_ts_ms: tree.control.medianMs,
      tree_control_ts_stall_ms: tree.control.maxLoopDelayMs,
      tree_control_ts_answer: tree.control.outcome,
      tree_extglob_ms: tree.extglob.medianMs,
      tree_extglob_answer: tree.extglob.outcome,
      tree_chain32_ms: tree.chain.medianMs,
      tree_chain32_stall_ms: tree.chain.maxLoopDelayMs,
      tree_chain32_answer: tree.chain.outcome,
      tree_chain300_ms: tree.longest.medianMs,
      tree_chain300_stall_ms: tree.longest.maxLoopDelayMs,
      tree_chain300_answer: tree.longest.outcome,
      tree_cache_defeating_ms: tree.cacheDefeating.medianMs,
      tree_cache_defeating_stall_ms: tree.cacheDefeating.maxLoopDelayMs,
      tree_cache_defeating_answer: tree.cacheDefeating.outcome,
    };
  },
};
