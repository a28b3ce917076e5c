import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bubblewrapSandbox } from './helpers.ts';

/** The pid of a process that has exited: nothing owns what is named after it. */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  if (!pid || existsSync(`/proc/${pid}`)) throw new Error('could not find a pid that has exited');
  return pid;
}

/** This process's cgroup v1 pids folder, where an exec-server started here makes its cgroups. */
function pidsCgroupFolder(): string | undefined {
  const line = readFileSync('/proc/self/cgroup', 'utf8').split('\n').find((entry) => entry.split(':')[1]?.split(',').includes('pids'));
  const folder = line && join('/sys/fs/cgroup/pids', line.slice(line.lastIndexOf(':') + 1));
  return folder && existsSync(folder) ? folder : undefined;
}

describe('what an exec-server killed outright left behind', () => {
  it('its /etc copy is removed by the next server that starts', async () => {
    const copy = mkdtempSync(join(tmpdir(), `toolgate-sandbox-etc-${deadPid()}-`));
    writeFileSync(join(copy, 'passwd'), 'root:x:0:0::/root:/bin/sh\n');
    const live = mkdtempSync(join(tmpdir(), `toolgate-sandbox-etc-${process.pid}-`));
    const sandbox = await bubblewrapSandbox();
    await sandbox.close();
    expect(existsSync(copy)).toBe(false);
    // A copy whose owner is alive stays.
    expect(existsSync(live)).toBe(true);
    rmSync(live, { recursive: true });
  });

  it('its seccomp filter folder is removed by the next server that starts; a server removes its own when it closes', async () => {
    const filterFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`toolgate-sandbox-seccomp-${process.pid}-`));
    const stale = mkdtempSync(join(tmpdir(), `toolgate-sandbox-seccomp-${deadPid()}-`));
    writeFileSync(join(stale, 'setuid-filter.bpf'), Buffer.alloc(8));
    const before = filterFolders();
    const sandbox = await bubblewrapSandbox();
    expect(existsSync(stale)).toBe(false);
    expect(filterFolders()).toHaveLength(before.length + 1);
    await sandbox.close();
    expect(filterFolders()).toEqual(before);
  });

  it("its git guard's folder is removed by the next server that starts; a server removes its own when it closes", async () => {
    const guardFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`toolgate-sandbox-git-${process.pid}-`));
    const stale = mkdtempSync(join(tmpdir(), `toolgate-sandbox-git-${deadPid()}-`));
    writeFileSync(join(stale, 'git'), '#!/bin/sh\n');
    const before = guardFolders();
    const sandbox = await bubblewrapSandbox();
    expect(existsSync(stale)).toBe(false);
    expect(guardFolders()).toHaveLength(before.length + 1);
    await sandbox.close();
    expect(guardFolders()).toEqual(before);
  });

  it.skipIf(pidsCgroupFolder() === undefined)('its empty cgroups are removed by the next server that starts (cgroup v1 pids)', async () => {
    const stale = join(pidsCgroupFolder()!, `toolgate-exec-${deadPid()}-1`);
    mkdirSync(join(stale, 'call-3'), { recursive: true });
    const sandbox = await bubblewrapSandbox();
    await sandbox.close();
    expect(existsSync(stale)).toBe(false);
  });
});
