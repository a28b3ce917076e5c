import { readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, assemble, jumpIfAnyBit, jumpIfEqual, label, load, SECCOMP_DATA, SECCOMP_RET } from '../../lib/exec/sandbox/bpf.ts';
import { bubblewrapArguments } from '../../lib/exec/sandbox/bubblewrap.ts';
import { writeSeccompFilter } from '../../lib/exec/sandbox/seccomp.ts';
import { setuidFilterFor } from '../../lib/exec/sandbox/setuid-filter.ts';

/**
 * The BPF assembler and the setuid filter as programs. The x86_64 filter runs for real in
 * sandbox-setuid.test.ts; aarch64's cannot run here, so both are also run through a classic-BPF
 * interpreter (below) on the syscalls that matter, each case checked against the kernel's rules.
 */

interface SyscallCall {
  nr: number;
  arch: number;
  args?: bigint[];
}

/** Runs a seccomp program on one syscall, as the kernel would; answers its return value. */
function runFilter(program: Uint8Array, call: SyscallCall): number {
  const data = new DataView(new ArrayBuffer(SECCOMP_DATA.size));
  data.setInt32(SECCOMP_DATA.nr, call.nr, true);
  data.setUint32(SECCOMP_DATA.arch, call.arch, true);
  (call.args ?? []).forEach((value, index) => data.setBigUint64(16 + 8 * index, value, true));
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let accumulator = 0;
  for (let pc = 0; pc * 8 < program.byteLength; ) {
    const [op, jt, jf, k] = [code.getUint16(pc * 8, true), code.getUint8(pc * 8 + 2), code.getUint8(pc * 8 + 3), code.getUint32(pc * 8 + 4, true)];
    const jump = (condition: boolean) => pc + 1 + (condition ? jt : jf);
    if (op === 0x20) [accumulator, pc] = [data.getUint32(k, true), pc + 1];
    else if (op === 0x15) pc = jump(accumulator === k);
    else if (op === 0x45) pc = jump((accumulator & k) !== 0);
    else if (op === 0x06) return k;
    else throw new Error(`unknown opcode ${op}`);
  }
  throw new Error('the program ran off its end');
}

const EPERM = SECCOMP_RET.errno(1);
const ENOSYS = SECCOMP_RET.errno(38);
const { allow: ALLOW, killProcess: KILL } = SECCOMP_RET;
const AT_FDCWD = BigInt.asUintN(64, -100n);
const O_CREAT = 0o100n;

/** The numbers each architecture gives the calls, and its own O_TMPFILE (O_DIRECTORY differs). */
const ARCHES = {
  x64: { audit: 0xc000_003e, fchmodat: 268, openat: 257, mknodat: 259, fchmod: 91, read: 0, tmpfile: 0o20200000n },
  arm64: { audit: 0xc000_00b7, fchmodat: 53, openat: 56, mknodat: 33, fchmod: 52, read: 63, tmpfile: 0o20040000n },
} as const;

describe.each(Object.entries(ARCHES))('the setuid filter for %s', (nodeArch, nr) => {
  const filter = setuidFilterFor(nodeArch);
  if (!filter.architecture) throw new Error(`no filter for ${nodeArch}`);
  const run = (number: number, ...args: bigint[]) => runFilter(filter.program, { nr: number, arch: nr.audit, args });

  it('refuses a mode with setuid or setgid, however it is set; lets every other mode through', () => {
    expect(run(nr.fchmodat, AT_FDCWD, 0n, 0o4755n)).toBe(EPERM);
    expect(run(nr.fchmodat, AT_FDCWD, 0n, 0o2755n)).toBe(EPERM);
    expect(run(nr.fchmod, 3n, 0o6755n)).toBe(EPERM);
    expect(run(452, AT_FDCWD, 0n, 0o4700n, 0n)).toBe(EPERM); // fchmodat2: the same number everywhere
    expect(run(nr.mknodat, AT_FDCWD, 0n, 0o100000n | 0o4755n, 0n)).toBe(EPERM);
    // Bits the kernel drops (above umode_t's 16) neither hide the setuid bit nor count as it.
    expect(run(nr.fchmodat, AT_FDCWD, 0n, (1n << 32n) | (1n << 16n) | 0o4755n)).toBe(EPERM);
    expect(run(nr.fchmodat, AT_FDCWD, 0n, (0xffffffffn << 32n) | 0o755n)).toBe(ALLOW);
    for (const mode of [0o755n, 0o644n, 0o777n, 0o1777n, 0o700n, 0n]) expect(run(nr.fchmodat, AT_FDCWD, 0n, mode)).toBe(ALLOW);
  });

  it('refuses an open that creates with setuid or setgid; ignores the mode of one that does not create', () => {
    expect(run(nr.openat, AT_FDCWD, 0n, O_CREAT | 1n, 0o4755n)).toBe(EPERM);
    expect(run(nr.openat, AT_FDCWD, 0n, nr.tmpfile | 1n, 0o2755n)).toBe(EPERM);
    expect(run(nr.openat, AT_FDCWD, 0n, O_CREAT | 1n, 0o755n)).toBe(ALLOW);
    // Without O_CREAT or O_TMPFILE the kernel ignores the mode argument, whatever it holds.
    expect(run(nr.openat, AT_FDCWD, 0n, 0n, 0o4755n)).toBe(ALLOW);
  });

  it('answers ENOSYS for openat2 and io_uring, kills any other calling convention, and lets the rest through', () => {
    for (const number of [437, 425, 426, 427]) expect(run(number)).toBe(ENOSYS);
    expect(runFilter(filter.program, { nr: 15, arch: 0x4000_0003, args: [0n, 0o4755n] })).toBe(KILL); // i386 chmod
    expect(runFilter(filter.program, { nr: nr.fchmodat, arch: nodeArch === 'x64' ? ARCHES.arm64.audit : ARCHES.x64.audit })).toBe(KILL);
    expect(run(nr.read, 0n, 0n, 0o4755n)).toBe(ALLOW);
  });
});

describe('the setuid filter, per architecture', () => {
  it('x86_64 also judges its older calls (chmod, open, creat, mknod) and kills x32 calls', () => {
    const filter = setuidFilterFor('x64');
    if (!filter.architecture) throw new Error('no filter for x64');
    const run = (number: number, ...args: bigint[]) => runFilter(filter.program, { nr: number, arch: ARCHES.x64.audit, args });
    expect(run(90, 0n, 0o4755n)).toBe(EPERM);
    expect(run(2, 0n, O_CREAT, 0o4755n)).toBe(EPERM);
    expect(run(2, 0n, 0n, 0o4755n)).toBe(ALLOW);
    expect(run(85, 0n, 0o2755n)).toBe(EPERM);
    expect(run(133, 0n, 0o104755n, 0n)).toBe(EPERM);
    expect(run(0x4000_0000 | 90, 0n, 0o755n)).toBe(KILL);
  });

  it('aarch64 uses its own numbers: x86_64\'s chmod (90) is capget there', () => {
    const filter = setuidFilterFor('arm64');
    if (!filter.architecture) throw new Error('no filter for arm64');
    expect(runFilter(filter.program, { nr: 90, arch: ARCHES.arm64.audit, args: [0n, 0o4755n] })).toBe(ALLOW);
  });

  it('other architectures get none, and say so (/healthz); bwrap then gets no --seccomp', () => {
    expect(setuidFilterFor('ppc64')).toEqual({ architecture: undefined, reason: 'no seccomp filter for ppc64: only x86_64 and aarch64 have one' });
    expect(writeSeccompFilter('ppc64')).toEqual({ setuidFiles: 'allowed (no seccomp filter for ppc64: only x86_64 and aarch64 have one)' });
    const call = { workspace: '/w', cwd: '/w', readOnly: false, network: false, tmpBytes: 1024, env: {}, command: 'true' };
    const layout = { bwrap: '/usr/bin/bwrap', ownUserNamespace: true, systemMounts: [], readOnlyPaths: [] };
    expect(bubblewrapArguments(layout, call)).not.toContain('--seccomp');
    const filtered = bubblewrapArguments({ ...layout, seccompFilter: '/f' }, call);
    expect(filtered.slice(filtered.indexOf('--seccomp'), filtered.indexOf('--seccomp') + 2)).toEqual(['--seccomp', '3']);
    // Before the command: bwrap's arguments end at the first non-option.
    expect(filtered.indexOf('--seccomp')).toBeLessThan(filtered.indexOf('/bin/bash'));
  });

  it('is written once, owner-only, to a private folder for bwrap to read', () => {
    const written = writeSeccompFilter();
    if (!written.file) return expect(written.setuidFiles).toMatch(/^allowed \(no seccomp filter for /);
    try {
      expect(readFileSync(written.file)).toEqual(Buffer.from((setuidFilterFor() as { program: Uint8Array }).program));
      expect(statSync(written.file).mode & 0o777).toBe(0o400);
      expect(statSync(dirname(written.file)).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(dirname(written.file), { recursive: true, force: true });
    }
  });
});

describe('the BPF assembler', () => {
  it('encodes struct sock_filter little-endian and resolves labels to forward offsets', () => {
    const program = assemble([load(SECCOMP_DATA.arch), jumpIfEqual(7, { otherwise: 'no' }), load(SECCOMP_DATA.argLow(1)), jumpIfAnyBit(0xc00, { then: 'no', otherwise: 'yes' }), label('yes'), answer(SECCOMP_RET.allow), label('no'), answer(SECCOMP_RET.errno(1))]);
    expect([...program]).toEqual([
      0x20, 0, 0, 0, 4, 0, 0, 0,
      0x15, 0, 0, 3, 7, 0, 0, 0,
      0x20, 0, 0, 0, 24, 0, 0, 0,
      0x45, 0, 1, 0, 0x00, 0x0c, 0, 0,
      0x06, 0, 0, 0, 0, 0, 0xff, 0x7f,
      0x06, 0, 0, 0, 1, 0, 5, 0,
    ]);
  });

  it('refuses malformed programs with the reason', () => {
    expect(() => assemble([])).toThrow('a filter has 1 to 4096 instructions, not 0');
    expect(() => assemble([load(0)])).toThrow('a filter must end with a return');
    expect(() => assemble([load(2), answer(0)])).toThrow('seccomp_data has no aligned word at offset 2');
    expect(() => assemble([load(64), answer(0)])).toThrow('seccomp_data has no aligned word at offset 64');
    expect(() => assemble([jumpIfEqual(1, { then: 'nowhere' }), answer(0)])).toThrow('jump to undefined label nowhere');
    expect(() => assemble([label('a'), label('a'), answer(0)])).toThrow('label a is defined twice');
    expect(() => assemble([label('back'), load(0), jumpIfEqual(1, { then: 'back' }), answer(0)])).toThrow('jump to back goes backwards: classic BPF jumps only forward');
    const far = [jumpIfEqual(1, { then: 'end' }), ...Array.from({ length: 256 }, () => load(0)), label('end'), answer(0)];
    expect(() => assemble(far)).toThrow('jump to end skips 256 instructions: at most 255');
  });
});
