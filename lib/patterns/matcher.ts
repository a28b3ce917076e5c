import { spendPatternBudget } from './budget.ts';
import { assertionContext, assertionHolds } from './context.ts';
import type { PatternFlags } from './parse.ts';
import type { Program } from './program.ts';
import { simulate } from './simulate.ts';

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

/** Threads (instruction indexes) the cache may hold before it starts over: bounds its memory. */
const CACHE_LIMIT = 10_000;

/**
 * New sets of threads one check may meet before the cache is judged not to pay (a pattern and
 * input whose sets never repeat) and the check goes on uncached (simulate.ts).
 */
const MISSES_BEFORE_UNCACHED = 256;

/**
 * Steps charged per character read through the cache (a lookup costs about two steps' time),
 * in chunks of this many characters: a request's many checks of long values add up too.
 */
const CACHED_CHARACTER_STEPS = 2;
const CHARACTERS_PER_CHARGE = 1024;

/**
 * Runs a program over a string in time linear in the string: the automaton's threads advance
 * together, one character at a time, so no input can make it retry (Thompson's construction, as
 * in RE2). Sets of threads and their transitions are cached as they are met, a lazily built DFA,
 * so a warm matcher costs a lookup per character; work outside the cache is charged to the
 * running pattern budget (budget.ts). When sets stop repeating, the check goes on uncached.
 */
export class LinearMatcher {
  readonly #program: Program;
  readonly #flags: PatternFlags;
  /** Without assertions every position has the same (empty) context: no work per character. */
  readonly #hasAssertions: boolean;
  /** Scratch: the set being canonicalised, one bit per instruction. */
  readonly #bits: Uint32Array;
  /** Scratch: when each instruction was last visited by a closure (`#visit` numbers them). */
  readonly #visited: Uint32Array;
  #visit = 0;
  /** Sets built during the current check. */
  #misses = 0;
  #pending = new Map<string, PendingSet>();
  #settled = new Map<string, SettledSet>();
  #cached = 0;

  constructor(program: Program, flags: PatternFlags) {
    this.#program = program;
    this.#flags = flags;
    this.#hasAssertions = program.instructions.some((instruction) => instruction.op === 'assert');
    this.#bits = new Uint32Array(Math.ceil(program.instructions.length / 32));
    this.#visited = new Uint32Array(program.instructions.length);
  }

  /** Whether the pattern matches somewhere in `input` (`wholeValue`: all of it, from start to end). */
  test(input: string, wholeValue: boolean): boolean {
    const start = this.#program.start;
    this.#misses = 0;
    let pending = this.#pendingOf([start]);
    let previous = -1;
    let charged = 0;
    for (let index = 0; ; ) {
      if (index - charged >= CHARACTERS_PER_CHARGE) {
        spendPatternBudget(CACHED_CHARACTER_STEPS * (index - charged));
        charged = index;
      }
      if (this.#misses > MISSES_BEFORE_UNCACHED) return simulate(this.#program, this.#flags, input, { index, previous, threads: pending.pcs }, wholeValue);
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

  #context(previous: number, next: number, index: number, length: number): number {
    return this.#hasAssertions ? assertionContext(this.#flags, previous, next, index, length) : 0;
  }

  /** Follows splits and assertions from every thread: what is left waits on a character. */
  #settle(pending: PendingSet, context: number): SettledSet {
    const known = pending.settled[context];
    if (known) return known;
    const { instructions, match } = this.#program;
    const visited = this.#visited;
    const visit = this.#nextVisit();
    const stack = pending.pcs.slice();
    const waiting: number[] = [];
    let accepting = false;
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (visited[pc] === visit) continue;
      visited[pc] = visit;
      const instruction = instructions[pc];
      if (instruction.op === 'split') stack.push(instruction.alt, instruction.next);
      else if (instruction.op === 'assert') {
        if (assertionHolds(instruction.kind, context)) stack.push(instruction.next);
      } else {
        waiting.push(pc);
        if (pc === match) accepting = true;
      }
    }
    this.#misses++;
    spendPatternBudget(instructions.length / 8 + waiting.length);
    const settled = this.#settledOf(waiting, accepting);
    pending.settled[context] = settled;
    return settled;
  }

  #nextVisit(): number {
    if (++this.#visit === 0xffffffff) {
      this.#visited.fill(0);
      this.#visit = 1;
    }
    return this.#visit;
  }

  #advance(settled: SettledSet, codePoint: number, restartAt: number | undefined): PendingSet {
    const known = codePoint < 128 ? settled.afterAscii[codePoint] : settled.after.get(codePoint);
    if (known) return known;
    const { instructions } = this.#program;
    const next: number[] = [];
    for (const pc of settled.pcs) {
      const instruction = instructions[pc];
      if (instruction.op === 'char' && instruction.test(codePoint)) next.push(instruction.next);
    }
    // A search also starts a new attempt at every position (an implicit leading `.*`).
    if (restartAt !== undefined) next.push(restartAt);
    this.#misses++;
    spendPatternBudget(settled.pcs.length);
    const pending = this.#pendingOf(next);
    if (codePoint < 128) settled.afterAscii[codePoint] = pending;
    else settled.after.set(codePoint, pending);
    return pending;
  }

  /** The set's instructions in ascending order and a key naming the set (its bits as text). */
  #canonical(pcs: readonly number[]): { sorted: number[]; key: string } {
    const bits = this.#bits;
    bits.fill(0);
    for (const pc of pcs) bits[pc >>> 5] |= 1 << (pc & 31);
    const sorted: number[] = [];
    let key = '';
    for (let word = 0; word < bits.length; word++) {
      let remaining = bits[word];
      key += String.fromCharCode(remaining & 0xffff, remaining >>> 16);
      while (remaining !== 0) {
        const lowest = remaining & -remaining;
        sorted.push(word * 32 + 31 - Math.clz32(lowest));
        remaining ^= lowest;
      }
    }
    spendPatternBudget(bits.length);
    return { sorted, key };
  }

  #pendingOf(pcs: readonly number[]): PendingSet {
    const { sorted, key } = this.#canonical(pcs);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = { pcs: sorted, settled: [] };
      this.#pending.set(key, pending);
      this.#count(sorted.length);
    }
    return pending;
  }

  #settledOf(pcs: readonly number[], accepting: boolean): SettledSet {
    const { sorted, key } = this.#canonical(pcs);
    let settled = this.#settled.get(key);
    if (!settled) {
      settled = { pcs: sorted, accepting, afterAscii: [], after: new Map() };
      this.#settled.set(key, settled);
      this.#count(sorted.length);
    }
    return settled;
  }

  /** Past the limit the cache starts over: sets met from then on are built again. */
  #count(threads: number): void {
    this.#cached += threads + 1;
    if (this.#cached <= CACHE_LIMIT) return;
    this.#pending = new Map();
    this.#settled = new Map();
    this.#cached = 0;
  }
}
