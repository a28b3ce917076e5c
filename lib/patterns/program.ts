import type { AST } from '@eslint-community/regexpp';
import { alternativesOf, type PatternNode } from './ast.ts';
import { charTestCache, type CharAtom, type CharTest } from './char-test.ts';
import type { ParsedPattern } from './parse.ts';
import { PatternError } from './pattern-error.ts';

/** Where a zero-width assertion holds; evaluated from the characters around a position. */
export type AssertionKind = 'start' | 'end' | 'word' | 'not-word';

/** One step of the automaton (a Thompson NFA); `next`/`alt` are instruction indexes. */
export type Instruction =
  | { op: 'char'; test: CharTest; next: number }
  | { op: 'split'; next: number; alt: number }
  | { op: 'assert'; kind: AssertionKind; next: number }
  | { op: 'match' };

export interface Program {
  instructions: Instruction[];
  start: number;
  match: number;
}

/**
 * The most instructions a pattern may compile to. Matching costs at most this much per input
 * character; counted repetitions multiply (`x{1000}` is a thousand copies of x), which is what
 * this limit stops. RE2 bounds repetition the same way.
 */
export const MAX_PROGRAM_SIZE = 2000;

type Node = PatternNode;

/** The instructions `node` compiles to, computed without building them (`Infinity` past the limit). */
function programSize(node: Node): number {
  if (node.type === 'Alternative') return node.elements.reduce((sum, element) => sum + programSize(element), 0);
  const alternatives = alternativesOf(node);
  if (alternatives) return alternatives.reduce((sum, alternative) => sum + programSize(alternative), alternatives.length - 1);
  if (node.type === 'Quantifier') {
    const body = programSize(node.element);
    const optional = node.max === Infinity ? body + 1 : (node.max - node.min) * (body + 1);
    const size = node.min * body + optional;
    return size > MAX_PROGRAM_SIZE ? Infinity : size;
  }
  return 1;
}

/** Builds back to front: each node is compiled knowing where its match continues. */
class Builder {
  readonly instructions: Instruction[] = [];
  readonly #testOf: (atom: CharAtom) => CharTest;

  constructor(pattern: ParsedPattern) {
    this.#testOf = charTestCache(pattern.flags);
  }

  emit(instruction: Instruction): number {
    this.instructions.push(instruction);
    return this.instructions.length - 1;
  }

  /** Compiles `node` to continue at `next`; returns where it starts. */
  compile(node: Node, next: number): number {
    switch (node.type) {
      case 'Alternative':
        return node.elements.reduceRight((continuation, element) => this.compile(element, continuation), next);
      case 'Pattern':
      case 'Group':
      case 'CapturingGroup': {
        const entries = node.alternatives.map((alternative) => this.compile(alternative, next));
        return entries.reduceRight((rest, entry) => this.emit({ op: 'split', next: entry, alt: rest }));
      }
      case 'Quantifier':
        return this.quantifier(node, next);
      case 'Assertion':
        return this.emit({ op: 'assert', kind: this.assertionKind(node), next });
      case 'Backreference':
        throw new PatternError('uses a backreference, which the linear-time engine cannot match');
      default:
        return this.emit({ op: 'char', test: this.#testOf(node), next });
    }
  }

  assertionKind(node: AST.Assertion): AssertionKind {
    if (node.kind === 'word') return node.negate ? 'not-word' : 'word';
    if (node.kind === 'start' || node.kind === 'end') return node.kind;
    throw new PatternError('uses lookaround, which the linear-time engine cannot match');
  }

  /** `x{2,4}` is `x x (x (x)?)?`; `x{2,}` is `x x x*` with `x*` a loop through one split. */
  quantifier(node: AST.Quantifier, next: number): number {
    let tail = next;
    if (node.max === Infinity) {
      const loop = this.emit({ op: 'split', next: -1, alt: next });
      (this.instructions[loop] as { next: number }).next = this.compile(node.element, loop);
      tail = loop;
    } else {
      for (let i = node.min; i < node.max; i++) tail = this.emit({ op: 'split', next: this.compile(node.element, tail), alt: next });
    }
    for (let i = 0; i < node.min; i++) tail = this.compile(node.element, tail);
    return tail;
  }
}

/** Refuses a pattern whose program would be larger than MAX_PROGRAM_SIZE. */
export function assertProgramSize(pattern: ParsedPattern): void {
  if (programSize(pattern.ast) <= MAX_PROGRAM_SIZE) return;
  throw new PatternError(
    `is too large for the linear-time engine (more than ${MAX_PROGRAM_SIZE} steps: counted repetitions multiply, x{100}{100} is 10,000 copies of x); use smaller counts, or maxLength/minLength to bound a length`,
  );
}

/** The automaton of a parsed pattern; refuses one larger than MAX_PROGRAM_SIZE. */
export function buildProgram(pattern: ParsedPattern): Program {
  assertProgramSize(pattern);
  const builder = new Builder(pattern);
  const match = builder.emit({ op: 'match' });
  const start = builder.compile(pattern.ast, match);
  return { instructions: builder.instructions, start, match };
}
