import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsandboxedCommands, type CommandSandbox } from '../lib/exec/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../lib/exec/local.ts';
import { probeCommandSandbox } from '../lib/exec/sandbox-probe.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { distribution, timeEachAsync } from './stats.ts';

const ROUNDS = 4;
const PER_ROUND = 50;
const WARMUP = 10;

/** `true` through execCommand, timed per call (ms), checked to have run. */
async function timeTrue(env: LocalExecutionEnvironment): Promise<Float64Array> {
  return timeEachAsync(PER_ROUND, WARMUP, async () => {
    const result = await env.execCommand('true');
    if (result.exit_code !== 0) throw new Error(`true failed: ${JSON.stringify(result)}`);
  });
}

/**
 * The price of the sandbox per command: LocalExecutionEnvironment.execCommand('true') in-process
 * as the exec-server runs it (bubblewrap, a cgroup per call, rlimits) and as --unsandboxed runs it
 * (/bin/bash -c in a process group). Rounds alternate so load on the machine hits both alike.
 */
export const execSandbox: BenchModule = {
  name: 'exec-sandbox',
  title: `execCommand('true') under bubblewrap (cgroup per call, rlimits) vs unsandboxed, in-process; ${ROUNDS} alternating rounds of ${PER_ROUND} calls (ms)`,
  async run(): Promise<Figures> {
    const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-sandbox-'));
    const sandboxed = await probeCommandSandbox();
    const plain: CommandSandbox = new UnsandboxedCommands({ allowNetwork: false, reason: 'benchmark baseline' });
    try {
      const report = sandboxed.report();
      if (report.sandbox !== 'bubblewrap') return { error: `no sandbox here: ${report.reason}` };
      const inSandbox = new LocalExecutionEnvironment(root, { sandbox: sandboxed });
      const unsandboxed = new LocalExecutionEnvironment(root, { sandbox: plain });
      const samples = { sandboxed: [] as number[], unsandboxed: [] as number[] };
      for (let round = 1; round <= ROUNDS; round++) {
        progress(`exec-sandbox round ${round}/${ROUNDS}`);
        samples.unsandboxed.push(...(await timeTrue(unsandboxed)));
        samples.sandboxed.push(...(await timeTrue(inSandbox)));
      }
      const ms = (values: number[]) => distribution(Float64Array.from(values, (us) => us / 1000));
      const s = ms(samples.sandboxed);
      const u = ms(samples.unsandboxed);
      return {
        calls_each: ROUNDS * PER_ROUND,
        memory_limit_by: report.limits.memory_bytes?.enforced_by ?? 'none',
        true_unsandboxed_p50_ms: u.p50,
        true_unsandboxed_p90_ms: u.p90,
        true_sandboxed_p50_ms: s.p50,
        true_sandboxed_p90_ms: s.p90,
        sandbox_added_p50_ms: round(s.p50 - u.p50),
        sandbox_added_p90_ms: round(s.p90 - u.p90),
      };
    } finally {
      await sandboxed.close();
      await rm(root, { recursive: true, force: true });
    }
  },
};
