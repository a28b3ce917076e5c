/**
 * The built Worker in workerd through Miniflare, as test/e2e/runtimes/workers.ts runs it
 * (wrangler.toml's compatibility settings and [vars], the given bindings on top), plus what the
 * `runtimes` benchmark needs on top: the workerd process's id and its CPU time from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { REPO_ROOT } from '../test/helpers/processes.ts';

export interface Workerd {
  origin: string;
  /** The workerd process Miniflare started for this instance. */
  pid: number;
  /** The end of workerd's stdout and stderr (the Worker's log lines), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

interface WorkerSettings {
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  vars: Record<string, string>;
}

let settings: WorkerSettings | undefined;

/** wrangler.toml read once: reading it is not part of any cold start. */
export function workerSettings(): WorkerSettings {
  if (settings) return settings;
  const config = unstable_readConfig({ config: join(REPO_ROOT, 'wrangler.toml') });
  const vars = Object.fromEntries(Object.entries(config.vars).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
  settings = { compatibilityDate: config.compatibility_date, compatibilityFlags: config.compatibility_flags, vars };
  return settings;
}

const OUTPUT_TAIL = 64 * 1024;

/** The built bundle on disk, or a module's text (a trivial Worker for a baseline). */
export type WorkerSource = { scriptPath: string } | { script: string };

/**
 * Starts workerd on `source`. `cf: false`: otherwise Miniflare fetches Request.cf from
 * workers.cloudflare.com (outside vitest), and the benchmark stays on loopback.
 */
export async function startWorkerd(source: WorkerSource, bindings: Record<string, string>): Promise<Workerd> {
  const { compatibilityDate, compatibilityFlags, vars } = workerSettings();
  let output = '';
  const keep = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-OUTPUT_TAIL); };
  const before = workerdChildren();
  const mf = new Miniflare({
    modules: true,
    ...source,
    compatibilityDate,
    compatibilityFlags,
    bindings: { ...vars, ...bindings },
    host: '127.0.0.1',
    cf: false,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.on('data', keep);
      stderr.on('data', keep);
    },
  });
  try {
    const url = await mf.ready;
    return { origin: url.origin, pid: newWorkerd(before), output: () => output, stop: () => mf.dispose() };
  } catch (error) {
    await mf.dispose();
    throw new Error(`workerd did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`, { cause: error });
  }
}

/** The one workerd child that was not there before this Miniflare started. */
function newWorkerd(before: Set<number>): number {
  const started = [...workerdChildren()].filter((pid) => !before.has(pid));
  if (started.length !== 1) throw new Error(`expected one new workerd child of this process, found ${started.length}`);
  return started[0];
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is field 3, state. */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Miniflare spawns workerd directly: it is a child of this process named workerd. */
function workerdChildren(): Set<number> {
  const pids = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === process.pid && readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'workerd') pids.add(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return pids;
}

export interface CpuSample {
  /** utime + stime of the whole process (every thread, ended ones included), in clock ticks. */
  ticks: number;
  /** Time on a CPU, in ns, summed over the process's live threads (/proc/<pid>/task/<tid>/schedstat). */
  onCpuNs: number;
  /** The same for the main thread alone, where workerd runs the isolate (V8's helper threads compile and collect garbage). */
  mainThreadNs: number;
  threads: number;
}

/** USER_HZ: the unit of utime and stime. 100 on Linux almost everywhere, i.e. 10 ms per tick. */
export const CLOCK_TICKS_PER_SECOND = clockTicks();

function clockTicks(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

export function sampleCpu(pid: number): CpuSample {
  const fields = statFields(pid);
  // Fields 14 and 15 of the stat line: utime and stime.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const tids = readdirSync(`/proc/${pid}/task`);
  let onCpuNs = 0;
  let mainThreadNs = 0;
  for (const tid of tids) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      onCpuNs += ns;
      if (Number(tid) === pid) mainThreadNs = ns;
    } catch {
      // The thread ended between the listing and the read; its time is in `ticks` still.
    }
  }
  return { ticks, onCpuNs, mainThreadNs, threads: tids.length };
}

export function ticksToMs(ticks: number): number {
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
