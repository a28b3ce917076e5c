import { spendPatternBudget } from './budget.ts';
import type { PatternFlags } from './parse.ts';
import type { AssertionKind, Program } from './program.ts';

/** A set of threads before the zero-width steps (splits, assertions) are followed. */
interface PendingSet {
  pcs: number[];
  /** The settled set per assertion context (3 bits: at start, at end, at a word boundary). */
  settled: Array<SettledSet | undefined>;
}

/** A set of threads each waiting on a character (or at the match). */
interface SettledSet {
  pcs: number[];
  accepting: boolean;
  /** The pending set after each code point seen so far: ASCII in an array, the rest in a map. */
  afterAscii: Array<PendingSet | undefined>;
  after: Map<number, PendingSet>;
}

/** Cached sets and transitions per matcher before the cache starts over (bounds its memory). */
const CACHE_LIMIT = 5000;

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
const AT_START = 1;
const AT_END = 2;
const AT_BOUNDARY = 4;

/**
 * Runs a program over a string in time linear in the string: the automaton's threads advance
 * together, one character at a time, so no input can make it retry (Thompson's construction, as
 * in RE2). Sets of threads and their transitions are cached as they are met, a lazily built DFA,
 * so a warm matcher costs a map lookup per character.
 */
export class LinearMatcher {
  readonly #program: Program;
  readonly #flags: PatternFlags;
  /** Without assertions every position has the same (empty) context: no work per character. */
  readonly #hasAssertions: boolean;
  #pending = new Map<string, PendingSet>();
  #settled = new Map<string, SettledSet>();
  #cached = 0;

  constructor(program: Program, flags: PatternFlags) {
    this.#program = program;
    this.#flags = flags;
    this.#hasAssertions = program.instructions.some((instruction) => instruction.op === 'assert');
  }

  /** Whether the pattern matches somewhere in `input` (`wholeValue`: all of it, from start to end). */
  test(input: string, wholeValue: boolean): boolean {
    const start = this.#program.start;
    let pending = this.#pendingOf([start]);
    let previous = -1;
    for (let index = 0; ; ) {
      const codePoint = index < input.length ? (input.codePointAt(index) as number) : -1;
      const settled = this.#settle(pending, this.#context(previous, codePoint, index, input.length));
      if (settled.accepting && (!wholeValue || codePoint === -1)) return true;
      if (codePoint === -1) return false;
      pending = this.#advance(settled, codePoint, wholeValue ? undefined : start);
      if (wholeValue && pending.pcs.length === 0) return false;
      previous = codePoint;
      index += codePoint > 0xffff ? 2 : 1;
    }
  }

  #isWord(codePoint: number): boolean {
    if ((codePoint >= 0x61 && codePoint <= 0x7a) || (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x30 && codePoint <= 0x39) || codePoint === 0x5f) return true;
    // ECMA-262 IsWordChar: with i and u, characters whose case folding is a word character count too.
    return this.#flags.ignoreCase && (codePoint === 0x017f || codePoint === 0x212a);
  }

  #context(previous: number, next: number, index: number, length: number): number {
    if (!this.#hasAssertions) return 0;
    const multiline = this.#flags.multiline;
    let context = 0;
    if (index === 0 || (multiline && LINE_TERMINATORS.has(previous))) context |= AT_START;
    if (index === length || (multiline && LINE_TERMINATORS.has(next))) context |= AT_END;
    if (this.#isWord(previous) !== this.#isWord(next)) context |= AT_BOUNDARY;
    return context;
  }

  #holds(kind: AssertionKind, context: number): boolean {
    if (kind === 'start') return (context & AT_START) !== 0;
    if (kind === 'end') return (context & AT_END) !== 0;
    return ((context & AT_BOUNDARY) !== 0) === (kind === 'word');
  }

  #settle(pending: PendingSet, context: number): SettledSet {
    const known = pending.settled[context];
    if (known) return known;
    const { instructions, match } = this.#program;
    const seen = new Uint8Array(instructions.length);
    const stack = [...pending.pcs];
    const pcs: number[] = [];
    let work = 0;
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      work++;
      if (seen[pc]) continue;
      seen[pc] = 1;
      const instruction = instructions[pc];
      if (instruction.op === 'split') stack.push(instruction.alt, instruction.next);
      else if (instruction.op === 'assert') {
        if (this.#holds(instruction.kind, context)) stack.push(instruction.next);
      } else pcs.push(pc);
    }
    spendPatternBudget(work);
    const settled = this.#settledOf(pcs, pcs.includes(match));
    pending.settled[context] = settled;
    return settled;
  }

  #advance(settled: SettledSet, codePoint: number, restartAt: number | undefined): PendingSet {
    const known = codePoint < 128 ? settled.afterAscii[codePoint] : settled.after.get(codePoint);
    if (known) return known;
    const { instructions } = this.#program;
    spendPatternBudget(settled.pcs.length);
    const next: number[] = [];
    for (const pc of settled.pcs) {
      const instruction = instructions[pc];
      if (instruction.op === 'char' && instruction.test(codePoint)) next.push(instruction.next);
    }
    // A search also starts a new attempt at every position (an implicit leading `.*`).
    if (restartAt !== undefined) next.push(restartAt);
    const pending = this.#pendingOf(next);
    if (codePoint < 128) settled.afterAscii[codePoint] = pending;
    else settled.after.set(codePoint, pending);
    this.#count();
    return pending;
  }

  #pendingOf(pcs: number[]): PendingSet {
    const sorted = [...new Set(pcs)].sort((a, b) => a - b);
    const key = sorted.join(',');
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = { pcs: sorted, settled: [] };
      this.#pending.set(key, pending);
      this.#count();
    }
    return pending;
  }

  #settledOf(pcs: number[], accepting: boolean): SettledSet {
    const sorted = pcs.sort((a, b) => a - b);
    const key = sorted.join(',');
    let settled = this.#settled.get(key);
    if (!settled) {
      settled = { pcs: sorted, accepting, afterAscii: [], after: new Map() };
      this.#settled.set(key, settled);
      this.#count();
    }
    return settled;
  }

  /** Past the limit the cache starts over: sets met from then on are built again. */
  #count(): void {
    if (++this.#cached <= CACHE_LIMIT) return;
    this.#pending = new Map();
    this.#settled = new Map();
    this.#cached = 0;
  }
}
