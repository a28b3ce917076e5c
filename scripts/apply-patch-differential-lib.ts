/**
 * The differential test of toolgate's apply_patch against Codex's own: each case is applied by
 * the Codex binary (`codex --codex-run-as-apply-patch PATCH`, from the @openai/codex dev
 * dependency) in one temp folder and by toolgate's engine over LocalExecutionEnvironment in
 * another, then the outcomes are compared: success or failure, the success summary, and every
 * file under the base folder (root and outside) byte for byte. Error wording may differ.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecEnvironmentError } from '../lib/exec/environment.ts';
import { LocalExecutionEnvironment } from '../lib/exec/local/local-environment.ts';
import { ApplyPatchError, applyPatch } from '../lib/tools/apply-patch/index.ts';
import type { PatchCase } from './apply-patch-cases.ts';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** Where npm puts the linux x64 binary of @openai/codex (an optional dependency of it). */
const CODEX_BINARY = join(repoRoot, 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex');

/** The Codex binary, or an error saying how to get it. Spawned directly: the node wrapper costs ~150 ms a call. */
export function findCodexBinary(): string {
  if (existsSync(CODEX_BINARY)) return CODEX_BINARY;
  throw new Error(
    `Codex's apply_patch binary was not found at ${CODEX_BINARY}: run \`npm install\` (the @openai/codex dev dependency ` +
      'ships it for linux x64 as @openai/codex-linux-x64); the differential test needs it',
  );
}

export interface Outcome {
  ok: boolean;
  /** The success summary, or the error text. */
  message: string;
  /** Every file and folder under the base folder after the patch: `root/...` and the outside. */
  tree: Record<string, string>;
}

export interface ToolgateOutcome extends Outcome {
  /** Why toolgate refused where Codex would go on: a deliberate safety difference. */
  refusal?: 'outside_root' | 'move_onto_itself';
}

/** A fresh base folder holding `root/` with the case's files; paths starting `../` land in the base. */
async function prepare(patchCase: PatchCase): Promise<{ base: string; root: string }> {
  const base = await mkdtemp(join(tmpdir(), 'toolgate-differential-'));
  const root = join(base, 'root');
  await mkdir(root);
  for (const folder of patchCase.folders) await mkdir(join(root, folder), { recursive: true });
  for (const [path, content] of Object.entries(patchCase.files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return { base, root };
}

function placePaths(text: string, base: string, root: string): string {
  return text.replaceAll('{ROOT}', root).replaceAll('{BASE}', base);
}

function unplacePaths(text: string, base: string, root: string): string {
  return text.replaceAll(root, '{ROOT}').replaceAll(base, '{BASE}');
}

/** Folders as `path/`, files as their bytes in latin1 (one char a byte). */
async function snapshot(base: string, prefix = ''): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const entry of await readdir(join(base, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      tree[`${path}/`] = '';
      Object.assign(tree, await snapshot(base, path));
    } else {
      tree[path] = (await readFile(join(base, path))).toString('latin1');
    }
  }
  return tree;
}

async function inFolders<T extends Outcome>(patchCase: PatchCase, run: (patch: string, root: string) => Promise<Omit<T, 'tree'>>): Promise<T> {
  const { base, root } = await prepare(patchCase);
  try {
    const outcome = await run(placePaths(patchCase.patch, base, root), root);
    return { ...outcome, message: unplacePaths(outcome.message, base, root), tree: await snapshot(base) } as T;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Runs the binary in `cwd`; resolves with its exit status and output (a failed patch is not an error here). */
function runBinary(binary: string, args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function runCodex(codex: string, patchCase: PatchCase): Promise<Outcome> {
  return inFolders(patchCase, async (patch, root) => {
    const result = await runBinary(codex, ['--codex-run-as-apply-patch', patch], root);
    return { ok: result.status === 0, message: result.status === 0 ? result.stdout : result.stderr.trim() };
  });
}

function refusalOf(error: ApplyPatchError): ToolgateOutcome['refusal'] {
  if (error.kind === 'move_onto_itself') return 'move_onto_itself';
  const cause = error.cause;
  return cause instanceof ExecEnvironmentError && cause.code === 'outside_root' ? 'outside_root' : undefined;
}

export function runToolgate(patchCase: PatchCase): Promise<ToolgateOutcome> {
  return inFolders<ToolgateOutcome>(patchCase, async (patch, root) => {
    try {
      return { ok: true, message: await applyPatch(patch, new LocalExecutionEnvironment(root)) };
    } catch (error) {
      if (!(error instanceof ApplyPatchError)) throw error;
      const refusal = refusalOf(error);
      return { ok: false, message: error.message, ...(refusal === undefined ? {} : { refusal }) };
    }
  });
}

export type Verdict = 'agree' | 'deliberate' | 'disagree';

export interface Comparison {
  patchCase: PatchCase;
  verdict: Verdict;
  /** For a disagreement: how the outcomes differ; for a deliberate difference: the refusal. */
  reason: string;
  codex: Outcome;
  toolgate: ToolgateOutcome;
}

function sameTree(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

function difference(codex: Outcome, toolgate: Outcome): string | null {
  if (codex.ok && !toolgate.ok) return 'codex succeeds, toolgate fails';
  if (!codex.ok && toolgate.ok) return 'codex fails, toolgate succeeds';
  if (!sameTree(codex.tree, toolgate.tree)) return codex.ok ? 'both succeed, files differ' : 'both fail, files differ';
  if (codex.ok && codex.message !== toolgate.message) return 'both succeed, summaries differ';
  return null;
}

export async function compareCase(codex: string, patchCase: PatchCase): Promise<Comparison> {
  const codexOutcome = await runCodex(codex, patchCase);
  const toolgateOutcome = await runToolgate(patchCase);
  const reason = difference(codexOutcome, toolgateOutcome);
  if (reason === null) return { patchCase, verdict: 'agree', reason: '', codex: codexOutcome, toolgate: toolgateOutcome };
  if (toolgateOutcome.refusal !== undefined) {
    return { patchCase, verdict: 'deliberate', reason: toolgateOutcome.refusal, codex: codexOutcome, toolgate: toolgateOutcome };
  }
  return { patchCase, verdict: 'disagree', reason, codex: codexOutcome, toolgate: toolgateOutcome };
}

/**
 * Compares every case, `concurrency` at a time (each case has its own folders; the Codex binary
 * takes ~30 ms to start, mostly waiting, so running a few at once pays); results in case order.
 */
export async function compareCases(codex: string, cases: readonly PatchCase[], concurrency = 6): Promise<Comparison[]> {
  const results: Comparison[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await compareCase(codex, cases[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
  return results;
}

export interface Tally {
  cases: number;
  agree: number;
  deliberate: Record<string, number>;
  /** Disagreements by `family/mistake: how they differ`. */
  disagree: Record<string, number>;
  /** Codex's outcomes: how many cases it applied and how many it refused. */
  codexSucceeded: number;
  codexFailed: number;
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export function tally(comparisons: readonly Comparison[]): Tally {
  const result: Tally = { cases: comparisons.length, agree: 0, deliberate: {}, disagree: {}, codexSucceeded: 0, codexFailed: 0 };
  for (const c of comparisons) {
    if (c.codex.ok) result.codexSucceeded++;
    else result.codexFailed++;
    if (c.verdict === 'agree') result.agree++;
    else if (c.verdict === 'deliberate') bump(result.deliberate, c.reason);
    else bump(result.disagree, `${c.patchCase.kind.split('+')[0]}: ${c.reason}`);
  }
  return result;
}

/** A disagreement written out so it can be read and replayed. */
export function describe(c: Comparison): string {
  const tree = (t: Record<string, string>) => JSON.stringify(t);
  return [
    `case ${c.patchCase.id} (${c.patchCase.kind}): ${c.reason}`,
    `  files: ${JSON.stringify(Object.fromEntries(Object.entries(c.patchCase.files).map(([k, v]) => [k, typeof v === 'string' ? v : `<bytes ${[...v].join(',')}>`])))}`,
    `  patch: ${JSON.stringify(c.patchCase.patch)}`,
    `  codex:    ${c.codex.ok ? 'ok' : 'failed'} ${JSON.stringify(c.codex.message)}`,
    `            ${tree(c.codex.tree)}`,
    `  toolgate: ${c.toolgate.ok ? 'ok' : 'failed'} ${JSON.stringify(c.toolgate.message)}`,
    `            ${tree(c.toolgate.tree)}`,
  ].join('\n');
}
