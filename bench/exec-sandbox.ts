import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemMounts } from '../lib/exec/sandbox/bubblewrap.ts';
import { BubblewrapSandbox } from '../lib/exec/sandbox/bubblewrap-sandbox.ts';
import { detectCgroups } from '../lib/exec/sandbox/cgroups.ts';
import { DEFAULT_COMMAND_LIMITS } from '../lib/exec/sandbox/command-limits.ts';
import { UnsandboxedCommands, type CommandSandbox } from '../lib/exec/sandbox/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../lib/exec/local/local-environment.ts';
import { copyAllowedEtc } from '../lib/exec/sandbox/etc-copy.ts';
import { probeCommandSandbox } from '../lib/exec/sandbox/probe.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { distribution, median, timeEachAsync } from './stats.ts';

const ROUNDS = 4;
const PER_ROUND = 50;
const WARMUP = 10;
/** dd bs=1 makes one read and one write per byte: a command that is almost only syscalls. */
const SYSCALL_BYTES = 1_000_000;
/** Its CPU time (user + system, from bash's `time`), which other load on the machine hardly changes, unlike its wall time. */
const SYSCALL_COMMAND = `TIMEFORMAT='%3U %3S'; time dd if=/dev/zero of=/dev/null bs=1 count=${SYSCALL_BYTES} status=none`;
const SYSCALL_PER_ROUND = 3;

/** `command` through execCommand, timed per call (ms), checked to have run. */
async function timeCommand(env: LocalExecutionEnvironment, command: string): Promise<Float64Array> {
  return timeEachAsync(PER_ROUND, WARMUP, async () => {
    const result = await env.execCommand(command);
    if (result.exit_code !== 0) throw new Error(`${command} failed: ${JSON.stringify(result)}`);
  });
}

/** The CPU milliseconds SYSCALL_COMMAND's dd used, `count` times. */
async function syscallCommandCpu(env: LocalExecutionEnvironment, count: number): Promise<number[]> {
  const cpu: number[] = [];
  for (let i = 0; i < count; i++) {
    const result = await env.execCommand(SYSCALL_COMMAND);
    const [user, system] = result.stderr.trim().split(' ').map(Number);
    if (result.exit_code !== 0 || !Number.isFinite(user + system)) throw new Error(`dd failed: ${JSON.stringify(result)}`);
    cpu.push((user + system) * 1000);
  }
  return cpu;
}

/** The exec-server's sandbox without the seccomp setuid filter: what the filter costs is the difference. */
async function sandboxWithoutFilter(bwrap: string): Promise<CommandSandbox> {
  const etcCopy = copyAllowedEtc();
  return new BubblewrapSandbox({
    layout: { bwrap, ownUserNamespace: true, systemMounts: systemMounts(etcCopy), readOnlyPaths: [] },
    limits: DEFAULT_COMMAND_LIMITS,
    cgroups: await detectCgroups(),
    allowNetwork: false,
    etcCopy,
    setuidFiles: 'allowed (benchmark baseline without the filter)',
  });
}

/**
 * The price of the sandbox per command: LocalExecutionEnvironment.execCommand('true') in-process
 * as the exec-server runs it (bubblewrap, a cgroup per call, rlimits, the seccomp filter), the
 * same without the filter, and as --unsandboxed runs it (/bin/bash -c in a process group). Then
 * the filter's price per syscall, from the CPU time of a command made of 2,000,000 syscalls. Rounds alternate so
 * load on the machine hits all alike.
 */
export const execSandbox: BenchModule = {
  name: 'exec-sandbox',
  title: `execCommand('true') under bubblewrap (cgroup per call, rlimits, seccomp filter) vs without the filter vs unsandboxed, in-process; ${ROUNDS} alternating rounds of ${PER_ROUND} calls (ms); the filter per syscall (CPU time of ${SYSCALL_PER_ROUND} × dd bs=1 count=${SYSCALL_BYTES} a round)`,
  async run(): Promise<Figures> {
    const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-sandbox-'));
    const sandboxed = await probeCommandSandbox();
    const unfiltered = await sandboxWithoutFilter('/usr/bin/bwrap');
    const plain: CommandSandbox = new UnsandboxedCommands({ allowNetwork: false, reason: 'benchmark baseline' });
    try {
      const report = sandboxed.report();
      if (report.sandbox !== 'bubblewrap') return { error: `no sandbox here: ${report.reason}` };
      const inSandbox = new LocalExecutionEnvironment(root, { sandbox: sandboxed });
      const noFilter = new LocalExecutionEnvironment(root, { sandbox: unfiltered });
      const unsandboxed = new LocalExecutionEnvironment(root, { sandbox: plain });
      const samples = { sandboxed: [] as number[], unfiltered: [] as number[], unsandboxed: [] as number[], syscallsFiltered: [] as number[], syscallsUnfiltered: [] as number[] };
      for (let round = 1; round <= ROUNDS; round++) {
        progress(`exec-sandbox round ${round}/${ROUNDS}`);
        samples.unsandboxed.push(...(await timeCommand(unsandboxed, 'true')));
        samples.unfiltered.push(...(await timeCommand(noFilter, 'true')));
        samples.sandboxed.push(...(await timeCommand(inSandbox, 'true')));
        samples.syscallsUnfiltered.push(...(await syscallCommandCpu(noFilter, SYSCALL_PER_ROUND)));
        samples.syscallsFiltered.push(...(await syscallCommandCpu(inSandbox, SYSCALL_PER_ROUND)));
      }
      const ms = (values: number[]) => distribution(Float64Array.from(values, (us) => us / 1000));
      const s = ms(samples.sandboxed);
      const f = ms(samples.unfiltered);
      const u = ms(samples.unsandboxed);
      const syscallsWith = median(samples.syscallsFiltered);
      const syscallsWithout = median(samples.syscallsUnfiltered);
      return {
        calls_each: ROUNDS * PER_ROUND,
        memory_limit_by: report.limits.memory_bytes?.enforced_by ?? 'none',
        setuid_files: report.setuid_files ?? 'allowed',
        true_unsandboxed_p50_ms: u.p50,
        true_unsandboxed_p90_ms: u.p90,
        true_sandboxed_p50_ms: s.p50,
        true_sandboxed_p90_ms: s.p90,
        true_sandboxed_without_filter_p50_ms: f.p50,
        true_sandboxed_without_filter_p90_ms: f.p90,
        sandbox_added_p50_ms: round(s.p50 - u.p50),
        sandbox_added_p90_ms: round(s.p90 - u.p90),
        filter_added_p50_ms: round(s.p50 - f.p50),
        dd_cpu_with_filter_median_ms: round(syscallsWith),
        dd_cpu_without_filter_median_ms: round(syscallsWithout),
        filter_added_per_syscall_ns: round(((syscallsWith - syscallsWithout) * 1e6) / (2 * SYSCALL_BYTES)),
      };
    } finally {
      await sandboxed.close();
      await unfiltered.close();
      await rm(root, { recursive: true, force: true });
    }
  },
};
