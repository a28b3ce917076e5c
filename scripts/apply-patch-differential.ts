/**
 * `npm run apply-patch-diff [-- --cases 3000] [-- --seed 1] [-- --show 3] [-- --concurrency 6] [-- --json]`: applies
 * generated patches with Codex's apply_patch and with toolgate's, and prints how often they
 * agree (success or failure, summary, resulting files byte for byte), the deliberate safety
 * refusals, and the disagreements by kind; `--show N` prints N disagreements in full.
 */
import { generateCases } from './apply-patch-cases.ts';
import { compareCases, describe, findCodexBinary, tally } from './apply-patch-differential-lib.ts';

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number, got ${args[at + 1]}`);
  return value;
}

function printCounts(title: string, counts: Record<string, number>): void {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  console.log(`${title}: ${rows.reduce((sum, [, n]) => sum + n, 0)}`);
  for (const [key, n] of rows) console.log(`  ${String(n).padStart(6)}  ${key}`);
}

async function main(args: string[]): Promise<number> {
  const cases = option(args, 'cases', 3000);
  const seed = option(args, 'seed', 1);
  const show = option(args, 'show', 3);
  const codex = findCodexBinary();
  const comparisons = await compareCases(codex, generateCases(seed, cases), option(args, 'concurrency', 6));
  const result = tally(comparisons);
  if (args.includes('--json')) {
    console.log(JSON.stringify({ seed, ...result }));
  } else {
    console.log(`apply_patch, toolgate against Codex (${codex}), seed ${seed}`);
    console.log(`cases: ${result.cases} (Codex applied ${result.codexSucceeded}, refused ${result.codexFailed})`);
    console.log(`agree: ${result.agree}`);
    printCounts('deliberate safety refusals', result.deliberate);
    printCounts('disagree', result.disagree);
    for (const c of comparisons.filter((c) => c.verdict === 'disagree').slice(0, show)) console.log(`\n${describe(c)}`);
  }
  return Object.keys(result.disagree).length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
