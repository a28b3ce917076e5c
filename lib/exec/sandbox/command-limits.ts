/**
 * The resource limits of one sandboxed command (Node only: the exec-server's side). Each call
 * gets the whole budget; processes of one call never share it with another call.
 */
export interface CommandLimits {
  /** CPU seconds per process (RLIMIT_CPU: SIGXCPU at the limit). */
  cpu_seconds: number;
  /** Memory of the whole call (a memory cgroup), or of each process (RLIMIT_DATA) when no cgroup is usable. */
  memory_bytes: number;
  /** Processes and threads of the whole call at once (a pids cgroup; RLIMIT_NPROC cannot bind root). */
  processes: number;
  /** The largest file a command may write (RLIMIT_FSIZE: SIGXFSZ beyond it). */
  file_size_bytes: number;
  /** Size of the fresh /tmp (and /dev/shm) tmpfs of each call. */
  tmp_bytes: number;
}

const MIB = 1024 * 1024;

/**
 * Generous enough for builds and test suites (tsc, a JVM, a parallel make), small enough that one
 * call cannot take the machine. RLIMIT_AS is not used: node reserves about 0.7 GiB of address
 * space before doing anything and a JVM reserves a quarter of the RAM for its heap, so an address
 * space limit low enough to matter breaks them (measured: node 22 dies under 512 MiB, java 17 under
 * 3 GiB on a 24 GiB machine), while RLIMIT_DATA and the memory cgroup count what is really used.
 */
export const DEFAULT_COMMAND_LIMITS: CommandLimits = {
  cpu_seconds: 300,
  memory_bytes: 2048 * MIB,
  processes: 512,
  file_size_bytes: 1024 * MIB,
  tmp_bytes: 512 * MIB,
};

/** Each limit must be a whole number of at least 1; answers the problem, or undefined. */
export function checkCommandLimits(limits: CommandLimits): string | undefined {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) return `the command limit ${name} must be a whole number of at least 1, got ${value}`;
  }
  return undefined;
}
