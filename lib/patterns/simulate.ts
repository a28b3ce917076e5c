import { spendPatternBudget } from './budget.ts';
import { assertionContext, assertionHolds } from './context.ts';
import type { PatternFlags } from './parse.ts';
import type { Program } from './program.ts';

/** Where a simulation picks up: the threads waiting before `index`, and the character before it. */
export interface SimulationStart {
  index: number;
  previous: number;
  threads: readonly number[];
}

/**
 * Pike's simulation of the automaton, without a cache and without allocating per character:
 * each character costs at most the program's size, charged to the pattern budget. The cached
 * matcher hands over to this when its cache stops paying (sets of threads that never repeat).
 */
export function simulate(program: Program, flags: PatternFlags, input: string, from: SimulationStart, wholeValue: boolean): boolean {
  const { instructions, start, match } = program;
  const size = instructions.length;
  const visited = new Uint8Array(size);
  // Every visited instruction pushes at most two, on top of the pending threads (at most size + 1).
  const stack = new Int32Array(3 * size + 2);
  let pending = Int32Array.from(from.threads, (pc) => pc);
  let pendingCount = pending.length;
  let next = new Int32Array(size + 1);
  const waiting = new Int32Array(size);
  let previous = from.previous;
  for (let index = from.index; ; ) {
    const codePoint = index < input.length ? (input.codePointAt(index) as number) : -1;
    const context = assertionContext(flags, previous, codePoint, index, input.length);
    // Follow splits and assertions: what remains waits on a character (or is the match).
    visited.fill(0);
    let top = 0;
    let waitingCount = 0;
    let accepting = false;
    for (let i = pendingCount - 1; i >= 0; i--) stack[top++] = pending[i];
    let work = 0;
    while (top > 0) {
      const pc = stack[--top];
      work++;
      if (visited[pc]) continue;
      visited[pc] = 1;
      const instruction = instructions[pc];
      if (instruction.op === 'split') {
        stack[top++] = instruction.alt;
        stack[top++] = instruction.next;
      } else if (instruction.op === 'assert') {
        if (assertionHolds(instruction.kind, context)) stack[top++] = instruction.next;
      } else {
        waiting[waitingCount++] = pc;
        if (pc === match) accepting = true;
      }
    }
    if (accepting && (!wholeValue || codePoint === -1)) return true;
    if (codePoint === -1) return false;
    let nextCount = 0;
    for (let i = 0; i < waitingCount; i++) {
      const instruction = instructions[waiting[i]];
      if (instruction.op === 'char' && instruction.test(codePoint)) next[nextCount++] = instruction.next;
    }
    if (!wholeValue) next[nextCount++] = start;
    else if (nextCount === 0) return false;
    spendPatternBudget(work + waitingCount + size / 64);
    [pending, next] = [next, pending.length >= size + 1 ? pending : new Int32Array(size + 1)];
    pendingCount = nextCount;
    previous = codePoint;
    index += codePoint > 0xffff ? 2 : 1;
  }
}
