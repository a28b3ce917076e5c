import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutionEnvironment } from '../lib/exec/local/local-environment.ts';
import { applyPatch, parsePatch, type PatchFileSystem } from '../lib/tools/apply-patch/index.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round, verdict } from './harness.ts';
import { median } from './stats.ts';

const LINES = 200_000;
const HUNKS = 100;
const CONTEXT = 3;
const RUNS = 5;
const FILE = 'big.txt';
const BUDGET_MS = 1000;

/** Every line unique, so each hunk's context can match in one place only (~51 bytes a line). */
const originalLine = (i: number) => `line ${String(i).padStart(6, '0')}: const value = compute(${i % 97}, "payload");`;
const changedLine = (i: number) => `line ${String(i).padStart(6, '0')}: const value = patched(${i}); // changed by hunk`;

/** Target lines spread evenly through the file, away from both ends so every hunk has full context. */
function targetLines(): number[] {
  const step = Math.floor(LINES / HUNKS);
  return Array.from({ length: HUNKS }, (_, k) => k * step + Math.floor(step / 2));
}

function originalText(): string {
  return `${Array.from({ length: LINES }, (_, i) => originalLine(i)).join('\n')}\n`;
}

/** One `@@` chunk per target: three context lines, the change, three context lines. */
function patchText(targets: readonly number[]): string {
  const out = ['*** Begin Patch', `*** Update File: ${FILE}`];
  for (const t of targets) {
    out.push('@@');
    for (let i = t - CONTEXT; i < t; i++) out.push(` ${originalLine(i)}`);
    out.push(`-${originalLine(t)}`, `+${changedLine(t)}`);
    for (let i = t + 1; i <= t + CONTEXT; i++) out.push(` ${originalLine(i)}`);
  }
  out.push('*** End Patch');
  return `${out.join('\n')}\n`;
}

function expectedText(targets: readonly number[]): string {
  const lines = Array.from({ length: LINES }, (_, i) => originalLine(i));
  for (const t of targets) lines[t] = changedLine(t);
  return `${lines.join('\n')}\n`;
}

/** The slice of the port apply_patch uses, in memory: isolates the algorithm from disk I/O. */
class MemoryPatchFileSystem implements PatchFileSystem {
  readonly files = new Map<string, Uint8Array>();

  async readFile(path: string): Promise<Uint8Array> {
    const bytes = this.files.get(path);
    if (!bytes) throw Object.assign(new Error(`${path}: not found`), { code: 'not_found' });
    return bytes;
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    this.files.set(path, content);
  }

  async deleteFile(path: string): Promise<void> {
    this.files.delete(path);
  }

  async stat(path: string): Promise<{ type: 'file'; size: number; mtime_ms: number } | null> {
    const bytes = this.files.get(path);
    return bytes ? { type: 'file', size: bytes.byteLength, mtime_ms: 0 } : null;
  }
}

/** Fails loudly when the patch did not do exactly what it says, so a failure is never timed as a success. */
function checkResult(actual: string, expected: string, targets: readonly number[], where: string): void {
  if (actual === expected) return;
  const lines = actual.split('\n');
  const wrong = targets.find((t) => lines[t] !== changedLine(t));
  throw new Error(`apply_patch (${where}) produced the wrong file: ${lines.length - 1} lines (expected ${LINES})${wrong === undefined ? '' : `, line ${wrong + 1} is ${JSON.stringify(lines[wrong])}`}`);
}

interface Workload {
  original: Uint8Array;
  patch: string;
  expected: string;
  targets: number[];
}

/** Untimed reset, then one timed applyPatch; returns ms. */
async function timeOnce(reset: () => Promise<void>, fs: PatchFileSystem, patch: string): Promise<number> {
  await reset();
  const start = performance.now();
  const summary = await applyPatch(patch, fs);
  const elapsed = performance.now() - start;
  if (!summary.includes(`M ${FILE}`)) throw new Error(`unexpected apply_patch summary: ${summary}`);
  return elapsed;
}

async function measureMemory(work: Workload): Promise<number[]> {
  const fs = new MemoryPatchFileSystem();
  const reset = async () => void fs.files.set(FILE, work.original);
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    samples.push(await timeOnce(reset, fs, work.patch));
    checkResult(new TextDecoder().decode(fs.files.get(FILE)), work.expected, work.targets, 'in memory');
  }
  return samples;
}

async function measureDisk(work: Workload): Promise<number[]> {
  const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-patch-'));
  try {
    const env = new LocalExecutionEnvironment(root);
    const reset = () => writeFile(join(root, FILE), work.original);
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      samples.push(await timeOnce(reset, env, work.patch));
      checkResult(await readFile(join(root, FILE), 'utf8'), work.expected, work.targets, 'on disk');
    }
    return samples;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function parseMs(patch: string): number {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const parsed = parsePatch(patch);
    samples.push(performance.now() - start);
    if (parsed.operations.length !== 1) throw new Error('the generated patch did not parse to one update');
  }
  return median(samples);
}

export const applyPatchBench: BenchModule = {
  name: 'apply-patch',
  title: `applyPatch of ${HUNKS} @@ hunks on a ${LINES.toLocaleString('en')}-line (~10 MB) file, in memory and through LocalExecutionEnvironment (ms, median of ${RUNS})`,
  async run(): Promise<Figures> {
    const targets = targetLines();
    const text = originalText();
    const work: Workload = { original: new TextEncoder().encode(text), patch: patchText(targets), expected: expectedText(targets), targets };
    const memory = await measureMemory(work);
    const disk = await measureDisk(work);
    const diskMedian = median(disk);
    return {
      file_bytes: work.original.byteLength,
      file_lines: LINES,
      hunks: HUNKS,
      patch_bytes: work.patch.length,
      parse_ms: round(parseMs(work.patch)),
      memory_median_ms: round(median(memory)),
      memory_min_ms: round(Math.min(...memory)),
      local_env_median_ms: round(diskMedian),
      local_env_min_ms: round(Math.min(...disk)),
      verified: `yes (whole file compared, ${HUNKS} lines changed)`,
      local_env_verdict: verdict('median', diskMedian, '<=', BUDGET_MS, ' ms'),
    };
  },
};
