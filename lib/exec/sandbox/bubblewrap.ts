import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { gitGuardMounts, type GitGuard } from './git-guard.ts';
import { SECCOMP_FILTER_FD } from './seccomp.ts';

/**
 * What a command sees under bubblewrap, and the bwrap arguments that build it. Nothing of the
 * host is visible unless named here:
 * - the system folders read-only (/usr and the /bin, /sbin, /lib* links or folders beside it);
 * - at /etc, a copy of an allowlist of its entries (see local-sandbox-etc.ts);
 * - a fresh /proc of the call's own pid namespace, with the kernel's writable knobs read-only
 *   (/proc/sys, /proc/sysrq-trigger: uid 0 writes core_pattern without any capability) and the
 *   files that leak host state masked, as Docker does;
 * - a minimal /dev, a fresh size-limited tmpfs at /tmp and /dev/shm (/tmp is also HOME, and
 *   /var/tmp links to it), nothing else: no /root, /home, /run, /sys, no gateway or project files;
 * - the workspace at its own path (so the paths the model sees keep working), read-write, or
 *   read-only for a read_only call, which also gets git behind a guard (local-sandbox-git.ts);
 * - the root and /dev read-only, so nothing else can be written anywhere.
 * Namespaces: all of them (user where possible, with no further ones allowed inside; pid, net,
 * ipc, uts, cgroup); the network one is kept only for a call that may use the network. Every
 * capability is dropped (as root, bwrap would otherwise keep them: enough to remount /usr
 * writable), the session is new (no terminal injection), and the whole sandbox dies with the
 * exec-server (--die-with-parent). A seccomp filter keeps commands from making setuid or setgid
 * files (setuid-filter.ts): the workspace is the host's, and uid 0 inside is uid 0 outside when
 * the server runs as root. bwrap's init is pid 1: when the command's shell exits, it
 * exits, and the kernel kills everything left in the namespace, background jobs included.
 */
export interface BubblewrapLayout {
  /** Absolute path of the bwrap program. */
  bwrap: string;
  /**
   * A user namespace of its own in which no further one can be made (--disable-userns: most
   * kernel exploits start by making one). Where user namespaces are unavailable, root still gets
   * the rest of the sandbox without it.
   */
  ownUserNamespace: boolean;
  /** Mount arguments that do not depend on the call (system folders, /etc, /proc, /dev). */
  systemMounts: string[];
  /** The operator's additional read-only folders (--read-only-path), mounted after /tmp so they may lie under it. */
  readOnlyPaths: readonly string[];
  /**
   * The compiled seccomp filter that refuses setuid and setgid modes (local-sandbox-seccomp.ts), or
   * undefined on an architecture without one. bwrap reads it on SECCOMP_FILTER_FD, which whoever
   * starts bwrap opens on this file.
   */
  seccompFilter?: string;
  /** What read_only calls run as git (local-sandbox-git.ts); undefined where the sandbox has no git. */
  gitGuard?: GitGuard;
}

export interface SandboxedCall {
  /** The workspace's real path, mounted at the same path. */
  workspace: string;
  /** Where the command starts: the workspace or a folder inside it. */
  cwd: string;
  readOnly: boolean;
  network: boolean;
  tmpBytes: number;
  env: Record<string, string>;
  command: string;
}

const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'bus', 'fs', 'irq'];
const PROC_MASKED_FILES = ['kcore', 'keys', 'key-users', 'timer_list', 'timer_stats', 'sched_debug', 'latency_stats'];
const PROC_MASKED_FOLDERS = ['acpi', 'scsi', 'asound'];

/** The call-independent mounts, from what exists on this host; `etcCopy` is the copy of the allowed /etc entries (local-sandbox-etc.ts). */
export function systemMounts(etcCopy: string): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    // usr-merged systems have /bin -> usr/bin: keep the link rather than a second mount.
    if (lstatSync(folder).isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
    else args.push('--ro-bind', folder, folder);
  }
  args.push('--ro-bind', etcCopy, '/etc');
  args.push('--proc', '/proc');
  for (const name of PROC_READ_ONLY) args.push('--ro-bind-try', `/proc/${name}`, `/proc/${name}`);
  for (const name of PROC_MASKED_FILES.filter((n) => existsSync(`/proc/${n}`))) args.push('--ro-bind', '/dev/null', `/proc/${name}`);
  for (const name of PROC_MASKED_FOLDERS.filter((n) => existsSync(`/proc/${n}`))) args.push('--tmpfs', `/proc/${name}`);
  args.push('--dev', '/dev');
  return args;
}

/** bwrap's arguments for one call, ending with the command (`/bin/bash -c command`). */
export function bubblewrapArguments(layout: BubblewrapLayout, call: SandboxedCall): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'toolgate-sandbox'];
  if (layout.ownUserNamespace) args.push('--unshare-user', '--disable-userns');
  if (call.network) args.push('--share-net');
  args.push(...layout.systemMounts);
  const tmpSize = String(call.tmpBytes);
  args.push('--size', tmpSize, '--tmpfs', '/dev/shm', '--size', tmpSize, '--tmpfs', '/tmp', '--symlink', '/tmp', '/var/tmp');
  for (const path of layout.readOnlyPaths) args.push('--ro-bind', path, path);
  args.push(call.readOnly ? '--ro-bind' : '--bind', call.workspace, call.workspace);
  if (call.readOnly && layout.gitGuard) args.push(...gitGuardMounts(layout.gitGuard, call.workspace));
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  if (layout.seccompFilter) args.push('--seccomp', String(SECCOMP_FILTER_FD));
  args.push('--chdir', call.cwd, '--clearenv');
  for (const [name, value] of Object.entries(call.env)) args.push('--setenv', name, value);
  args.push('/bin/bash', '-c', call.command);
  return args;
}
