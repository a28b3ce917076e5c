/**
 * A very small assembler for classic BPF as seccomp runs it: just the instructions the setuid
 * filter needs (load a 32-bit word of `struct seccomp_data`, test it, return a verdict), with
 * named labels instead of hand-counted jump offsets. The output is the `struct sock_filter` array
 * that `bwrap --seccomp FD` reads from the descriptor and hands to the kernel.
 *
 * Classic BPF has one register (A). Each instruction is 8 bytes in the machine's byte order:
 * `u16 code, u8 jt, u8 jf, u32 k`. A conditional jump goes `jt` (when true) or `jf` (when false)
 * instructions forward from the next one; there are no backward jumps, so every program ends.
 * Only little-endian machines are served (x86_64, aarch64): the bytes are written little-endian.
 */

/** `struct seccomp_data`: `int nr; u32 arch; u64 instruction_pointer; u64 args[6];` (64 bytes). */
export const SECCOMP_DATA = {
  nr: 0,
  arch: 4,
  /** The low 32 bits of argument `index` (little-endian: the first word of the u64). */
  argLow: (index: number) => 16 + 8 * index,
  size: 64,
} as const;

/** What a seccomp filter answers for a syscall (the high 16 bits; the low 16 carry the errno). */
export const SECCOMP_RET = {
  killProcess: 0x8000_0000,
  errno: (errno: number) => 0x0005_0000 | (errno & 0xffff),
  allow: 0x7fff_0000,
} as const;

// Opcodes: class | size/operation | source (linux/bpf_common.h).
const BPF_LD_W_ABS = 0x00 | 0x00 | 0x20;
const BPF_JMP_JEQ_K = 0x05 | 0x10 | 0x00;
const BPF_JMP_JSET_K = 0x05 | 0x40 | 0x00;
const BPF_RET_K = 0x06 | 0x00;

/** The kernel refuses longer filters (BPF_MAXINSNS). */
const MAX_INSTRUCTIONS = 4096;
/** A jump offset is one byte. */
const MAX_JUMP = 255;

/** Where a conditional jump goes: a label, or the next instruction when left out. */
export interface Branches {
  then?: string;
  otherwise?: string;
}

export type BpfStep =
  | { kind: 'label'; name: string }
  | { kind: 'load'; offset: number }
  | { kind: 'jump'; code: number; value: number; branches: Branches }
  | { kind: 'return'; value: number };

/** Step constructors, so a program reads as a list: `[load(...), jumpIfEqual(...), ...]`. */
export const label = (name: string): BpfStep => ({ kind: 'label', name });
/** A = the 32-bit word of seccomp_data at `offset`. */
export const load = (offset: number): BpfStep => ({ kind: 'load', offset });
/** A == value ? then : otherwise. */
export const jumpIfEqual = (value: number, branches: Branches): BpfStep => ({ kind: 'jump', code: BPF_JMP_JEQ_K, value, branches });
/** (A & bits) != 0 ? then : otherwise. */
export const jumpIfAnyBit = (bits: number, branches: Branches): BpfStep => ({ kind: 'jump', code: BPF_JMP_JSET_K, value: bits, branches });
/** End the filter with this verdict (SECCOMP_RET). */
export const answer = (value: number): BpfStep => ({ kind: 'return', value });

/** Assembles the steps into the bytes of a `struct sock_filter` array; throws on a malformed program. */
export function assemble(steps: readonly BpfStep[]): Uint8Array {
  const positions = labelPositions(steps);
  const instructions = steps.filter((step) => step.kind !== 'label');
  if (instructions.length === 0 || instructions.length > MAX_INSTRUCTIONS) throw new Error(`a filter has 1 to ${MAX_INSTRUCTIONS} instructions, not ${instructions.length}`);
  if (instructions.at(-1)?.kind !== 'return') throw new Error('a filter must end with a return: the kernel refuses one that can run off its end');
  const bytes = new Uint8Array(instructions.length * 8);
  const view = new DataView(bytes.buffer);
  instructions.forEach((step, index) => {
    const [code, jt, jf, k] = encode(step, index, positions);
    view.setUint16(index * 8, code, true);
    view.setUint8(index * 8 + 2, jt);
    view.setUint8(index * 8 + 3, jf);
    view.setUint32(index * 8 + 4, k >>> 0, true);
  });
  return bytes;
}

/** Each label's instruction index (the instruction that follows it). */
function labelPositions(steps: readonly BpfStep[]): Map<string, number> {
  const positions = new Map<string, number>();
  let index = 0;
  for (const step of steps) {
    if (step.kind !== 'label') {
      index++;
      continue;
    }
    if (positions.has(step.name)) throw new Error(`label ${step.name} is defined twice`);
    positions.set(step.name, index);
  }
  return positions;
}

function encode(step: Exclude<BpfStep, { kind: 'label' }>, index: number, positions: Map<string, number>): [number, number, number, number] {
  switch (step.kind) {
    case 'load':
      if (step.offset % 4 !== 0 || step.offset < 0 || step.offset >= SECCOMP_DATA.size) throw new Error(`seccomp_data has no aligned word at offset ${step.offset}`);
      return [BPF_LD_W_ABS, 0, 0, step.offset];
    case 'jump':
      return [step.code, distance(step.branches.then, index, positions), distance(step.branches.otherwise, index, positions), step.value];
    case 'return':
      return [BPF_RET_K, 0, 0, step.value];
  }
}

/** How many instructions to skip from the one after `index` to reach `target` (0: the next one). */
function distance(target: string | undefined, index: number, positions: Map<string, number>): number {
  if (target === undefined) return 0;
  const position = positions.get(target);
  if (position === undefined) throw new Error(`jump to undefined label ${target}`);
  const skip = position - (index + 1);
  if (skip < 0) throw new Error(`jump to ${target} goes backwards: classic BPF jumps only forward`);
  if (skip > MAX_JUMP) throw new Error(`jump to ${target} skips ${skip} instructions: at most ${MAX_JUMP}`);
  return skip;
}
