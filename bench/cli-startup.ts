/**
 * CLI start-up as a user sees it: wall-clock ms from spawn to exit, median of rounds (the commands
 * interleaved in every round, after one warm-up round that also rebuilds a stale CLI bundle).
 * "toolgate X" runs bin/toolgate.js as an installed bin does (`#!/usr/bin/env node`, so the shell's
 * PATH picks the node: this machine's system Node 20 when PATH has no node_modules/.bin), and
 * "node22 X" as `npm run`/`npx` do (their PATH puts the project's Node 22 first). `npx toolgate`
 * runs npx from the shell's PATH; npx's own floor is the same `npx toolgate --help` with a preload
 * (NODE_OPTIONS=--require) that ends the bin's node as soon as it starts: everything npx does plus
 * a bare node start, so toolgate's share is the difference (the median of each round's difference).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { median } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 7);
const BUDGET_MS = 300;
const MANIFEST = 'examples/acme/manifest.json';

/** The shell's environment, without what `npm run` adds (node_modules/.bin on PATH, npm_* variables). */
function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.toLowerCase().startsWith('npm_')) env[key] = value;
  env.PATH = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules')).join(delimiter);
  return env;
}

/** A preload that ends the `toolgate` bin's node at once (npm's own node, running npx-cli.js, goes on). */
function exitAtStart(dir: string): string {
  const file = join(dir, 'exit-at-start.cjs');
  writeFileSync(file, "if (require('node:path').basename(process.argv[1] ?? '') === 'toolgate') process.exit(0);\n");
  return file;
}

interface Probe {
  key: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

function timeOnce(probe: Probe, env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const run = spawnSync(probe.command, probe.args, { cwd: ROOT, env: { ...env, ...probe.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = performance.now() - start;
  if (run.status !== 0) throw new Error(`${probe.command} ${probe.args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return elapsed;
}

export const cliStartup: BenchModule = {
  name: 'cli-startup',
  title: `toolgate CLI start-up, ms wall clock from spawn to exit (median of ${ROUNDS} rounds); budget ≤ ${BUDGET_MS} ms`,
  async run(): Promise<Figures> {
    const env = shellEnv();
    const node22 = join(ROOT, 'node_modules/node/bin/node');
    const bin = join(ROOT, 'bin/toolgate.js');
    const scratch = mkdtempSync(join(tmpdir(), 'toolgate-bench-cli-'));
    const probes: Probe[] = [
      { key: 'npx_help', command: 'npx', args: ['toolgate', '--help'] },
      { key: 'npx_floor', command: 'npx', args: ['toolgate', '--help'], env: { NODE_OPTIONS: `--require ${exitAtStart(scratch)}` } },
      { key: 'npx_c_true', command: 'npx', args: ['-c', 'true'] },
      { key: 'toolgate_help', command: bin, args: ['--help'] },
      { key: 'toolgate_version', command: bin, args: ['--version'] },
      { key: 'toolgate_validate', command: bin, args: ['manifest', 'validate', MANIFEST] },
      { key: 'node22_help', command: node22, args: [bin, '--help'] },
      { key: 'node22_validate', command: node22, args: [bin, 'manifest', 'validate', MANIFEST] },
      { key: 'toolgate_exec_server_help_handover', command: bin, args: ['exec-server', '--help'] },
      { key: 'node22_help_from_source', command: node22, args: [bin, '--help'] },
    ];
    const sourceEnv = { ...env, TOOLGATE_CLI_SOURCE: '1' };
    const envOf = (probe: Probe) => (probe.key.endsWith('from_source') ? sourceEnv : env);
    const samples = new Map<string, number[]>(probes.map((p) => [p.key, []]));
    try {
      for (const probe of probes) timeOnce(probe, envOf(probe)); // warm-up (also the npx cache entry, the bundle)
      for (let round = 0; round < ROUNDS; round++) {
        progress(`cli-startup round ${round + 1}/${ROUNDS}`);
        for (const probe of probes) samples.get(probe.key)!.push(timeOnce(probe, envOf(probe)));
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const ms = (key: string) => round(median(samples.get(key)!));
    const node = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
    // Paired by round (each round runs both back to back), so load that drifts between rounds cancels.
    const share = round(median(samples.get('npx_help')!.map((value, i) => value - samples.get('npx_floor')![i])));
    return {
      shell_node: node,
      npx_toolgate_help_ms: ms('npx_help'),
      npx_floor_ms: ms('npx_floor'),
      npx_floor_c_true_ms: ms('npx_c_true'),
      npx_toolgate_help_toolgate_share_ms: share,
      npx_toolgate_help_verdict: verdict('npx toolgate --help', ms('npx_help'), '<=', BUDGET_MS, ' ms'),
      npx_toolgate_help_share_verdict: verdict('npx toolgate --help minus npx floor', share, '<=', BUDGET_MS, ' ms'),
      toolgate_help_ms: ms('toolgate_help'),
      toolgate_help_verdict: verdict('toolgate --help', ms('toolgate_help'), '<=', BUDGET_MS, ' ms'),
      toolgate_version_ms: ms('toolgate_version'),
      toolgate_version_verdict: verdict('toolgate --version', ms('toolgate_version'), '<=', BUDGET_MS, ' ms'),
      toolgate_manifest_validate_ms: ms('toolgate_validate'),
      toolgate_manifest_validate_verdict: verdict(`toolgate manifest validate ${MANIFEST}`, ms('toolgate_validate'), '<=', BUDGET_MS, ' ms'),
      node22_help_ms: ms('node22_help'),
      node22_manifest_validate_ms: ms('node22_validate'),
      node22_manifest_validate_verdict: verdict('node22 toolgate manifest validate', ms('node22_validate'), '<=', BUDGET_MS, ' ms'),
      toolgate_handover_to_node22_ms: ms('toolgate_exec_server_help_handover'),
      node22_help_from_source_ms: ms('node22_help_from_source'),
    };
  },
};
