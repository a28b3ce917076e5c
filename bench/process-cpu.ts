/**
 * CPU time of another process on Linux, from /proc: utime + stime (every thread: the event loop,
 * SQLite, GC and libuv's pool) in clock ticks of 1/USER_HZ s (100 on Linux), as µs.
 */
import { readFileSync } from 'node:fs';

const USER_HZ = 100;

export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / USER_HZ;
}

/** The direct children of `pid` (Linux 3.5+: /proc/<pid>/task/<tid>/children). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
