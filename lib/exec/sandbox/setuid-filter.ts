import { answer, assemble, jumpIfAnyBit, jumpIfEqual, label, load, SECCOMP_DATA, SECCOMP_RET, type BpfStep } from './bpf.ts';

/**
 * The seccomp filter that keeps commands from making setuid or setgid files.
 *
 * Why: bwrap maps the sandbox's uid 0 to the host's uid 0 when the exec-server runs as root, and
 * the workspace is the host's own folder, mounted without nosuid on the host. A file a command
 * makes `-rwsr-xr-x root` there makes any local user who can reach the workspace root (and with
 * a non-root server, that server's user). The sandbox's own nosuid mounts and no_new_privs only
 * protect the inside.
 *
 * How: every way to give a file a mode passes through a few syscalls, and the mode is a plain
 * register argument the filter can read (no pointer, so nothing a racing thread could change):
 * - chmod, fchmod, fchmodat, fchmodat2 (cp -p, tar -p, rsync -p, install -m, chmod itself);
 * - open, openat, creat with O_CREAT or O_TMPFILE (python's os.open(path, flags, 0o4755));
 * - mknod, mknodat (a regular file can be made with mknod without any capability).
 * When that mode has S_ISUID or S_ISGID the call fails with EPERM, and nothing is created or
 * changed. Every other mode passes (chmod 755, 644, +x, the sticky bit).
 *
 * Some calls cannot be judged, so they fail as if the kernel lacked them (ENOSYS), which every
 * program handles by using the older call: openat2 (its mode sits in a struct in memory) and
 * io_uring (its operations, such as opening a file with a mode, never pass through seccomp).
 *
 * Writing to an existing setuid file does not keep its bit: the kernel clears it unless the
 * writer holds CAP_FSETID, and commands hold no capability. A hard link to a setuid program of
 * the host fails with EXDEV: the workspace and the system folders are different mounts.
 *
 * The filter checks the calling convention first (the audit arch): a 64-bit x86 process can
 * also make 32-bit (int 0x80) and x32 syscalls, whose numbers differ. Those are not judged: the
 * process is killed (SIGSYS), so 32-bit programs do not run in the sandbox.
 */

/** S_ISUID | S_ISGID. */
const SETUID_SETGID = 0o4000 | 0o2000;
/** O_CREAT | __O_TMPFILE: the open flags that make the kernel use the mode (the same bits on x86_64 and aarch64). */
const CREATING_OPEN = 0o100 | 0o20000000;
const EPERM = 1;
const ENOSYS = 38;

type SyscallName =
  | 'chmod' | 'fchmod' | 'fchmodat' | 'fchmodat2' | 'mknod' | 'mknodat' | 'creat' | 'open' | 'openat'
  | 'openat2' | 'io_uring_setup' | 'io_uring_enter' | 'io_uring_register';

/** A calling convention the filter knows: its AUDIT_ARCH and its syscall numbers. */
interface Architecture {
  /** The name /healthz and the README use. */
  name: string;
  /** AUDIT_ARCH_*: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. */
  auditArch: number;
  /** x86_64: x32 syscalls share the audit arch and carry this bit in their number. */
  x32Bit?: number;
  /** The syscalls below that exist here (aarch64 has only the *at forms). */
  syscalls: Partial<Record<SyscallName, number>>;
}

/** By Node's `process.arch`. Numbers from the kernel's syscall_64.tbl and asm-generic/unistd.h. */
const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  x64: {
    name: 'x86_64',
    auditArch: 0xc000_003e,
    x32Bit: 0x4000_0000,
    syscalls: {
      open: 2, creat: 85, chmod: 90, fchmod: 91, mknod: 133, openat: 257, mknodat: 259, fchmodat: 268,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, openat2: 437, fchmodat2: 452,
    },
  },
  arm64: {
    name: 'aarch64',
    auditArch: 0xc000_00b7,
    syscalls: {
      mknodat: 33, fchmod: 52, fchmodat: 53, openat: 56,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, openat2: 437, fchmodat2: 452,
    },
  },
};

/** What each syscall is checked for: the argument holding the mode, and for open the one holding the flags. */
type Check = { mode: number } | { creatingFlags: number; mode: number } | 'absent';

const CHECKS: Record<SyscallName, Check> = {
  chmod: { mode: 1 },
  fchmod: { mode: 1 },
  fchmodat: { mode: 2 },
  fchmodat2: { mode: 2 },
  mknod: { mode: 1 },
  mknodat: { mode: 2 },
  creat: { mode: 1 },
  open: { creatingFlags: 1, mode: 2 },
  openat: { creatingFlags: 2, mode: 3 },
  openat2: 'absent',
  io_uring_setup: 'absent',
  io_uring_enter: 'absent',
  io_uring_register: 'absent',
};

/** The compiled filter for this machine, or why there is none. */
export type SetuidFilter = { architecture: string; program: Uint8Array } | { architecture: undefined; reason: string };

/** The filter for a Node `process.arch` value; other architectures get none (and say so). */
export function setuidFilterFor(nodeArch: string = process.arch): SetuidFilter {
  const architecture = ARCHITECTURES[nodeArch];
  if (!architecture) {
    const known = Object.values(ARCHITECTURES).map((a) => a.name).join(' and ');
    return { architecture: undefined, reason: `no seccomp filter for ${nodeArch}: only ${known} have one` };
  }
  return { architecture: architecture.name, program: assemble(setuidFilterSteps(architecture)) };
}

/**
 * The program: check the calling convention, dispatch on the syscall number, then test the
 * argument. Jumps go forward only, so the blocks come in the order they are reached: the open
 * flags before the mode, the mode before the verdicts.
 */
function setuidFilterSteps(architecture: Architecture): BpfStep[] {
  const checked = Object.entries(architecture.syscalls) as [SyscallName, number][];
  const checks = checked.map(([name]) => CHECKS[name]);
  return [
    load(SECCOMP_DATA.arch),
    jumpIfEqual(architecture.auditArch, { otherwise: 'kill' }),
    load(SECCOMP_DATA.nr),
    ...(architecture.x32Bit ? [jumpIfAnyBit(architecture.x32Bit, { then: 'kill' })] : []),
    ...checked.map(([name, nr]) => jumpIfEqual(nr, { then: labelFor(CHECKS[name]) })),
    answer(SECCOMP_RET.allow),
    ...openFlagTests(checks),
    ...modeTests(checks),
    label('absent'), answer(SECCOMP_RET.errno(ENOSYS)),
    label('refuse'), answer(SECCOMP_RET.errno(EPERM)),
    label('allow'), answer(SECCOMP_RET.allow),
    label('kill'), answer(SECCOMP_RET.killProcess),
  ];
}

/** Without O_CREAT or O_TMPFILE the kernel ignores an open's mode argument (it may hold anything): allow. */
function openFlagTests(checks: Check[]): BpfStep[] {
  return distinct(checks.filter(createsWithMode), labelFor).flatMap((open) => [
    label(labelFor(open)),
    load(SECCOMP_DATA.argLow(open.creatingFlags)),
    jumpIfAnyBit(CREATING_OPEN, { then: modeLabel(open.mode), otherwise: 'allow' }),
  ]);
}

/** The kernel takes the mode as umode_t (16 bits): the low word of the argument holds every bit it uses. */
function modeTests(checks: Check[]): BpfStep[] {
  const modeArguments = distinct(checks.flatMap((check) => (check === 'absent' ? [] : [check.mode])), String).sort((a, b) => a - b);
  return modeArguments.flatMap((index) => [
    label(modeLabel(index)),
    load(SECCOMP_DATA.argLow(index)),
    jumpIfAnyBit(SETUID_SETGID, { then: 'refuse', otherwise: 'allow' }),
  ]);
}

function labelFor(check: Check): string {
  if (check === 'absent') return 'absent';
  if ('creatingFlags' in check) return `creating-flags-in-arg-${check.creatingFlags}`;
  return modeLabel(check.mode);
}

function modeLabel(index: number): string {
  return `mode-in-arg-${index}`;
}

function createsWithMode(check: Check): check is { creatingFlags: number; mode: number } {
  return typeof check === 'object' && 'creatingFlags' in check;
}

/** The first of each group of values with the same key. */
function distinct<T>(values: T[], key: (value: T) => string): T[] {
  return [...new Map(values.map((value) => [key(value), value] as const)).values()];
}
