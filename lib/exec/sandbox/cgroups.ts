import { access, appendFile, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandLimits } from './command-limits.ts';
import { removeEmptyCgroup, removeStaleLeftovers } from './stale-leftovers.ts';

/**
 * One cgroup per command, for what rlimits cannot do: RLIMIT_NPROC does not bind root and counts
 * every process of the user, and a per-process memory limit lets a command fork its way past it.
 * The call's cgroups are children of the exec-server's own (so whatever limits the operator put
 * on the server still hold), named `toolgate-exec-<pid>-<n>/call-<n>`. The command's first process
 * writes its pid into them before it execs bubblewrap (see sandboxLaunch), so nothing of the
 * command ever runs outside them; they are emptied and removed when the call ends.
 *
 * cgroup v1 (a hierarchy per controller, as here) needs nothing from the operator. On cgroup v2
 * a controller can only be handed to children of a cgroup without processes of its own, so the
 * server moves itself into `toolgate-exec-<pid>-<n>/server` first, and only when it is alone in its
 * cgroup (for example under `systemd-run --scope -p Delegate=yes`).
 *
 * The parent's memory limit bounds every call together (the operator's --limit-memory-total, by
 * default commands at once × memory per call): the calls' limits alone add up with each call the
 * server runs at once. On v2 the server's own process sits in that parent too, with room for it.
 */
export type CgroupController = 'pids' | 'memory';

interface Hierarchy {
  version: 1 | 2;
  /** toolgate-exec-<pid>-<n> under the server's own cgroup. */
  parent: string;
  controllers: CgroupController[];
}

export interface CgroupSupport {
  /** How each controller is enforced, for /healthz: 'cgroup v1', 'cgroup v2', or the reason it is not. */
  readonly enforced: Record<CgroupController, string | undefined>;
  readonly notEnforcedReason: string | undefined;
  /** How the memory of all calls together is bounded ('cgroup v1', 'cgroup v2'), undefined when it is not. */
  readonly enforcedAllCalls: string | undefined;
  create(limits: CommandLimits): Promise<CallCgroup>;
  /** Removes the server's parent cgroups (the calls' are removed as they end). */
  close(): Promise<void>;
}

export interface CallOutcome {
  /** Processes the kernel killed for going over the memory limit. */
  oomKills: number;
  /** Times a fork or clone was refused at the process limit. */
  processLimitHits: number;
}

export interface CallCgroup {
  /** The cgroup.procs files the command's first process joins before it execs. */
  readonly procsFiles: string[];
  /** Kills whatever is left in the cgroups, reads what the limits did, removes them. */
  finish(): Promise<CallOutcome>;
}

const CONTROLLERS: CgroupController[] = ['pids', 'memory'];

/** On cgroup v2 the server's own process shares the calls' parent: this much more is its room. */
const V2_SERVER_ALLOWANCE_BYTES = 1024 * 1024 * 1024;

export interface CgroupOptions {
  /** The memory of all calls together, set on their parent cgroup; none when undefined. */
  memoryAllCallsBytes?: number;
}

let detections = 0;

/** Finds where this process's cgroups are and whether the server may make children there. */
export async function detectCgroups(options: CgroupOptions = {}): Promise<CgroupSupport> {
  let hierarchies: Hierarchy[];
  try {
    hierarchies = await findHierarchies(await readFile('/proc/self/cgroup', 'utf8'), await readFile('/proc/self/mountinfo', 'utf8'));
  } catch (error) {
    return new Cgroups([], `cgroups are not readable here (${(error as Error).message})`, undefined);
  }
  const usable: Hierarchy[] = [];
  const problems: string[] = [];
  for (const hierarchy of hierarchies) {
    const problem = await prepareParent(hierarchy);
    if (problem) problems.push(problem);
    else usable.push(hierarchy);
  }
  const missing = CONTROLLERS.filter((controller) => !usable.some((h) => h.controllers.includes(controller)));
  if (missing.length > 0 && problems.length === 0) problems.push(`no ${missing.join(' or ')} cgroup controller is mounted for this process`);
  const memory = usable.find((h) => h.controllers.includes('memory'));
  const allCalls = memory && options.memoryAllCallsBytes !== undefined && (await limitAllCalls(memory, options.memoryAllCallsBytes)) ? `cgroup v${memory.version}` : undefined;
  return new Cgroups(usable, problems.length > 0 ? problems.join('; ') : undefined, allCalls);
}

/** No cgroups at all (the reason is what /healthz shows): rlimits alone bound the calls. */
export function withoutCgroups(reason: string): CgroupSupport {
  return new Cgroups([], reason, undefined);
}

class Cgroups implements CgroupSupport {
  readonly enforced: Record<CgroupController, string | undefined>;
  readonly notEnforcedReason: string | undefined;
  readonly enforcedAllCalls: string | undefined;
  readonly #hierarchies: Hierarchy[];
  #nextCall = 0;

  constructor(hierarchies: Hierarchy[], reason: string | undefined, allCalls: string | undefined) {
    this.#hierarchies = hierarchies;
    this.notEnforcedReason = reason;
    this.enforcedAllCalls = allCalls;
    const by = (controller: CgroupController) => hierarchies.find((h) => h.controllers.includes(controller));
    this.enforced = {
      pids: by('pids') && `cgroup v${by('pids')!.version}`,
      memory: by('memory') && `cgroup v${by('memory')!.version}`,
    };
  }

  async create(limits: CommandLimits): Promise<CallCgroup> {
    const name = `call-${++this.#nextCall}`;
    const dirs: Array<{ dir: string; hierarchy: Hierarchy }> = [];
    try {
      for (const hierarchy of this.#hierarchies) {
        const dir = join(hierarchy.parent, name);
        await mkdir(dir);
        dirs.push({ dir, hierarchy });
        for (const [file, value] of limitFiles(hierarchy, limits)) await writeIfPresent(join(dir, file), value);
      }
    } catch (error) {
      await Promise.all(dirs.map(({ dir }) => removeCgroup(dir)));
      throw error;
    }
    return {
      procsFiles: dirs.map(({ dir }) => join(dir, 'cgroup.procs')),
      finish: () => finishCall(dirs),
    };
  }

  async close(): Promise<void> {
    for (const hierarchy of this.#hierarchies) await rmdir(hierarchy.parent).catch(() => {});
  }
}

/** What to write into a call's cgroup, in order (v1 memsw must not go below the memory limit). */
function limitFiles(hierarchy: Hierarchy, limits: CommandLimits): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  if (hierarchy.controllers.includes('pids')) files.push(['pids.max', String(limits.processes)]);
  if (hierarchy.controllers.includes('memory')) {
    const bytes = String(limits.memory_bytes);
    if (hierarchy.version === 1) files.push(['memory.limit_in_bytes', bytes], ['memory.memsw.limit_in_bytes', bytes]);
    else files.push(['memory.max', bytes], ['memory.swap.max', '0']);
  }
  return files;
}

async function finishCall(dirs: Array<{ dir: string; hierarchy: Hierarchy }>): Promise<CallOutcome> {
  const outcome: CallOutcome = { oomKills: 0, processLimitHits: 0 };
  for (const { dir, hierarchy } of dirs) {
    await killEverything(dir, hierarchy.version);
    if (hierarchy.controllers.includes('memory')) {
      outcome.oomKills += counter(await readIfPresent(join(dir, hierarchy.version === 1 ? 'memory.oom_control' : 'memory.events')), 'oom_kill');
    }
    if (hierarchy.controllers.includes('pids')) outcome.processLimitHits += counter(await readIfPresent(join(dir, 'pids.events')), 'max');
    await removeCgroup(dir);
  }
  return outcome;
}

/**
 * The pid namespace already took every process of the call down with its init; this is the
 * second lock on the door (and the only one for a process that left the namespace somehow).
 */
async function killEverything(dir: string, version: 1 | 2): Promise<void> {
  if (version === 2 && (await writeIfPresent(join(dir, 'cgroup.kill'), '1').catch(() => false))) return;
  for (let round = 0; round < 20; round++) {
    const pids = (await readIfPresent(join(dir, 'cgroup.procs'))).split('\n').filter(Boolean).map(Number);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await pause(10);
  }
}

/**
 * rmdir fails while the last killed processes are still being reaped: retry briefly. Never
 * throws: the call's answer matters more than an empty cgroup left behind.
 */
async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      await pause(20);
    }
  }
}

/** The number after `name` in a flat-keyed cgroup file ("oom_kill 1"), 0 when absent. */
function counter(text: string, name: string): number {
  const match = text.match(new RegExp(`^${name} (\\d+)$`, 'm'));
  return match ? Number(match[1]) : 0;
}

// ---- finding the hierarchies -------------------------------------------------------------------

interface Mount {
  /** The hierarchy path mounted here ("/" unless this is a namespaced or bind mount). */
  root: string;
  point: string;
  type: 'cgroup' | 'cgroup2';
  options: string[];
}

async function findHierarchies(selfCgroup: string, mountinfo: string): Promise<Hierarchy[]> {
  const mounts = parseCgroupMounts(mountinfo);
  const found: Hierarchy[] = [];
  // Unique per detection: several servers (and tests) may run in one process, each closing its own.
  const parentName = `toolgate-exec-${process.pid}-${++detections}`;
  for (const line of selfCgroup.split('\n').filter(Boolean)) {
    const [id, list, path] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1, line.lastIndexOf(':')), line.slice(line.lastIndexOf(':') + 1)];
    if (id === '0') {
      const mount = mounts.find((m) => m.type === 'cgroup2');
      if (!mount) continue;
      const own = join(mount.point, relativeTo(path, mount.root));
      const available = (await readIfPresent(join(own, 'cgroup.controllers'))).split(/\s+/);
      // A controller already claimed by a v1 hierarchy is listed there too: v1 wins.
      const controllers = CONTROLLERS.filter((c) => available.includes(c) && !found.some((h) => h.controllers.includes(c)));
      if (controllers.length > 0) found.push({ version: 2, parent: join(own, parentName), controllers });
      continue;
    }
    const names = list.split(',');
    const controllers = CONTROLLERS.filter((c) => names.includes(c));
    const mount = mounts.find((m) => m.type === 'cgroup' && controllers.some((c) => m.options.includes(c)));
    if (controllers.length === 0 || !mount) continue;
    for (const other of found.filter((h) => h.version === 2)) other.controllers = other.controllers.filter((c) => !controllers.includes(c));
    found.push({ version: 1, parent: join(mount.point, relativeTo(path, mount.root), parentName), controllers });
  }
  return found.filter((h) => h.controllers.length > 0);
}

function parseCgroupMounts(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [type, , superOptions = ''] = after.split(' ');
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    mounts.push({ root: unescapeMount(fields[3]), point: unescapeMount(fields[4]), type, options: superOptions.split(',') });
  }
  return mounts;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function relativeTo(path: string, root: string): string {
  if (root === '/' || !path.startsWith(root)) return path;
  return path.slice(root.length) || '/';
}

/** Makes the server's parent cgroup; answers why it cannot be used, or undefined. */
async function prepareParent(hierarchy: Hierarchy): Promise<string | undefined> {
  removeStaleLeftovers(dirname(hierarchy.parent), 'toolgate-exec-', removeEmptyCgroup);
  try {
    await mkdir(hierarchy.parent, { recursive: true });
    if (hierarchy.version === 2) await delegateV2(hierarchy);
    // A trial child proves the calls' cgroups can be made and removed again.
    const trial = join(hierarchy.parent, 'probe');
    await mkdir(trial, { recursive: true });
    await rmdir(trial);
    return undefined;
  } catch (error) {
    await rmdir(hierarchy.parent).catch(() => {});
    const names = hierarchy.controllers.join(' and ');
    return `the ${names} cgroup (v${hierarchy.version}) at ${hierarchy.parent} is not usable: ${(error as Error).message}`;
  }
}

/** The memory limit of all calls together, on their parent; answers whether it was set. */
async function limitAllCalls(hierarchy: Hierarchy, bytes: number): Promise<boolean> {
  const file = (name: string) => join(hierarchy.parent, name);
  try {
    if (hierarchy.version === 1) {
      // Without hierarchical accounting (the default of old kernels) a parent's limit ignores its children.
      if ((await readIfPresent(file('memory.use_hierarchy'))).trim() === '0') await writeFile(file('memory.use_hierarchy'), '1');
      await writeFile(file('memory.limit_in_bytes'), String(bytes));
      await writeIfPresent(file('memory.memsw.limit_in_bytes'), String(bytes));
    } else {
      await writeFile(file('memory.max'), String(bytes + V2_SERVER_ALLOWANCE_BYTES));
      await writeIfPresent(file('memory.swap.max'), '0');
    }
    return true;
  } catch {
    return false;
  }
}

/** cgroup v2: move the server into a leaf of its own, then hand the controllers down to the calls. */
async function delegateV2(hierarchy: Hierarchy): Promise<void> {
  const own = join(hierarchy.parent, '..');
  const enable = hierarchy.controllers.map((c) => `+${c}`).join(' ');
  const others = (await readFile(join(own, 'cgroup.procs'), 'utf8')).split('\n').filter((pid) => pid !== '' && Number(pid) !== process.pid);
  if (others.length > 0) {
    throw new Error(`other processes share the exec-server's cgroup, so its controllers cannot be handed down: start it in a cgroup of its own (e.g. systemd-run --scope -p Delegate=yes toolgate exec-server ...)`);
  }
  const server = join(hierarchy.parent, 'server');
  await mkdir(server, { recursive: true });
  await appendFile(join(server, 'cgroup.procs'), String(process.pid));
  await appendFile(join(own, 'cgroup.subtree_control'), enable);
  await appendFile(join(hierarchy.parent, 'cgroup.subtree_control'), enable);
}

// ---- small file helpers --------------------------------------------------------------------------

/** Writes when the file exists (memsw needs swap accounting, cgroup.kill a 5.14 kernel); answers whether it did. */
async function writeIfPresent(file: string, value: string): Promise<boolean> {
  try {
    await access(file);
  } catch {
    return false;
  }
  await writeFile(file, value);
  return true;
}

async function readIfPresent(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
