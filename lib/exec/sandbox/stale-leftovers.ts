import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What an exec-server that was killed outright (SIGKILL, a crash) leaves behind: its empty
 * cgroups and its copy of /etc. Both carry the owner's pid in their name, so a server starting
 * up removes those whose owner is gone. A pid reused by another process keeps its leftovers a
 * while longer, which costs nothing.
 */
export function removeStaleLeftovers(folder: string, prefix: string, remove: (path: string) => void): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = ownerPid(name, prefix);
    if (pid === undefined || pid === process.pid || existsSync(`/proc/${pid}`)) continue;
    try {
      remove(join(folder, name));
    } catch {
      // Still in use (a cgroup with processes) or not ours to remove: leave it.
    }
  }
}

/** `<prefix><pid>-...` → pid. */
function ownerPid(name: string, prefix: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const pid = Number(/^\d+/.exec(name.slice(prefix.length))?.[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** An empty cgroup and its empty children (rmdir fails, as it should, while a process is inside). */
export function removeEmptyCgroup(path: string): void {
  for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory()) removeEmptyCgroup(join(path, entry.name));
  rmdirSync(path);
}

/** A folder of copied files. */
export function removeFolder(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
