import type { AST } from '@eslint-community/regexpp';
import { alternativesOf } from './ast.ts';
import { CharSpace, type CharSet } from './char-space.ts';
import type { CharAtom } from './char-test.ts';
import type { ParsedPattern } from './parse.ts';

type Node = AST.Node;
type Repetition = AST.Quantifier;

const isAtom = (node: Node): node is CharAtom =>
  node.type === 'Character' || node.type === 'CharacterSet' || node.type === 'CharacterClass' || node.type === 'ExpressionCharacterClass';

/** The nodes directly inside `node` that the check walks (a class is an atom: not walked into). */
function childrenOf(node: Node): readonly Node[] {
  if (node.type === 'Alternative') return node.elements;
  if (node.type === 'Quantifier') return node.max === 0 ? [] : [node.element];
  return alternativesOf(node) ?? [];
}

/** Whether `node` can make a repetition around it ambiguous: a repetition of varying count, or a choice. */
const isAmbiguityPart = (node: Node): boolean =>
  (node.type === 'Quantifier' && node.max !== node.min && node.max > 0) || (alternativesOf(node)?.length ?? 0) > 1;

/**
 * The repetitions that can run more than once, inside no other such, that hold something to
 * check (a repetition of varying count, or a choice), with the atoms inside them: the only
 * characters the check compares. Found without recursion.
 */
function repetitionsToCheck(root: Node): { repetitions: Repetition[]; atoms: CharAtom[] } {
  const repetitions = new Set<Repetition>();
  const stack: Array<[Node, Repetition | undefined]> = [[root, undefined]];
  const atomsOf = new Map<Repetition, CharAtom[]>();
  while (stack.length > 0) {
    const [node, outer] = stack.pop() as [Node, Repetition | undefined];
    if (outer && isAtom(node)) atomsOf.get(outer)?.push(node);
    if (outer && isAmbiguityPart(node)) repetitions.add(outer);
    const opens = !outer && node.type === 'Quantifier' && node.max > 1;
    if (opens) atomsOf.set(node, []);
    for (const child of childrenOf(node)) stack.push([child, opens ? node : outer]);
  }
  return { repetitions: [...repetitions], atoms: [...repetitions].flatMap((repetition) => atomsOf.get(repetition) ?? []) };
}

/** Long parts are cut in messages, which must stay readable. */
function shown(raw: string): string {
  return raw.length > 60 ? `${raw.slice(0, 59)}…` : raw;
}

/**
 * A repetition with a bound whose element can match in at most this many ways in all (`(?:25[0-5]|2[0-4]\d|1?\d?\d){3}`,
 * the octets of an IPv4 address) cannot make a backtracking engine try more than this many
 * ways from one position, however it is written: it is not checked.
 */
const BOUNDED_WAYS = 256;

const FIX = "a backtracking engine (JavaScript's own, or any client's) can take exponential time on a short input";

/**
 * One walk of each outermost repetition, top down, carrying what may follow each node within
 * one more turn of it. Every node's first characters and nullability are computed once, and
 * sets are bit sets over the pattern's blocks (char-space.ts): the work is the pattern's size
 * times its number of blocks over 32, and the recursion is as deep as the groups nest
 * (nesting.ts bounds it).
 */
class Analysis {
  readonly #space: CharSpace;
  readonly #nullable = new Map<Node, boolean>();
  readonly #first = new Map<Node, CharSet>();
  /** The problem earliest in the source, so the message names what a reader meets first. */
  problem: { start: number; message: string } | undefined;

  constructor(space: CharSpace) {
    this.#space = space;
  }

  /** Whether `node` can match the empty string. */
  nullable(node: Node): boolean {
    let known = this.#nullable.get(node);
    if (known === undefined) {
      if (isAtom(node)) known = false;
      else if (node.type === 'Alternative') known = node.elements.every((element) => this.nullable(element));
      else if (node.type === 'Quantifier') known = node.min === 0 || this.nullable(node.element);
      else known = alternativesOf(node)?.some((alternative) => this.nullable(alternative)) ?? true;
      this.#nullable.set(node, known);
    }
    return known;
  }

  /** The characters the first character `node` consumes may be. */
  first(node: Node): CharSet {
    let known = this.#first.get(node);
    if (known === undefined) {
      if (isAtom(node)) known = this.#space.atom(node);
      else {
        const parts = node.type === 'Alternative' ? this.#leadingElements(node) : childrenOf(node);
        known = parts.length === 1 ? this.first(parts[0]) : this.#space.empty;
        if (parts.length > 1) {
          const builder = this.#space.builder();
          for (const part of parts) this.#space.add(builder, this.first(part));
          known = builder;
        }
      }
      this.#first.set(node, known);
    }
    return known;
  }

  /** The elements up to the first that cannot match the empty string: one of them consumes the first character. */
  #leadingElements(node: AST.Alternative): readonly Node[] {
    const end = node.elements.findIndex((element) => !this.nullable(element));
    return end < 0 ? node.elements : node.elements.slice(0, end + 1);
  }

  #report(start: number, message: string): void {
    if (!this.problem || start < this.problem.start) this.problem = { start, message };
  }

  /** Checks one outermost repetition that can run more than once. */
  check(outer: Repetition): void {
    if (this.#ways(outer) <= BOUNDED_WAYS) return;
    this.#visit(outer.element, this.first(outer.element), outer);
  }

  /** How many ways `node` can match at most (more than BOUNDED_WAYS: Infinity). */
  #ways(node: Node): number {
    const bounded = (ways: number) => (ways > BOUNDED_WAYS ? Infinity : ways);
    if (node.type === 'Alternative') return bounded(node.elements.reduce((ways, element) => ways * this.#ways(element), 1));
    if (node.type === 'Quantifier') {
      if (node.max === Infinity) return Infinity;
      const each = this.#ways(node.element);
      let ways = 0;
      for (let count = node.min; count <= node.max && ways <= BOUNDED_WAYS; count++) ways += each ** count;
      return bounded(ways);
    }
    const alternatives = alternativesOf(node);
    return alternatives ? bounded(alternatives.reduce((ways, alternative) => ways + this.#ways(alternative), 0)) : 1;
  }

  /** Walks `node`, which `follow` may follow within one more turn of `outer`. */
  #visit(node: Node, follow: CharSet, outer: Repetition): void {
    if (node.type === 'Quantifier') this.#visitRepetition(node, follow, outer);
    else if (node.type === 'Alternative') this.#visitSequence(node, follow, outer);
    else {
      const alternatives = alternativesOf(node);
      if (!alternatives) return;
      this.#checkAlternatives(alternatives, outer);
      for (const alternative of alternatives) this.#visit(alternative, follow, outer);
    }
  }

  /** A repetition inside `outer` whose end is ambiguous: `(a+)+`, `(\w+\s?)*`, `(a*b*)*`. */
  #visitRepetition(node: Repetition, follow: CharSet, outer: Repetition): void {
    if (node.max === 0) return;
    if (node.max !== node.min && this.#space.overlaps(this.first(node.element), follow)) {
      this.#report(
        node.start,
        `the repetition ${shown(node.raw)} inside the repetition ${shown(outer.raw)} can match the same characters in more than one way, so ${FIX}; make what repeats and what follows it exclusive (e.g. (?:[a-z]+-)* instead of (?:[a-z]+-?)*) or remove one of the repetitions`,
      );
    }
    // Another turn may start after the last character: what the element starts with follows it too.
    this.#visit(node.element, node.max > 1 ? this.#space.union(this.first(node.element), follow) : follow, outer);
  }

  /** Elements in order: each is followed by the next ones, up to the first that cannot be empty. */
  #visitSequence(node: AST.Alternative, follow: CharSet, outer: Repetition): void {
    let after = follow;
    // Once built here, `after` is this walk's own: the elements' walks only read it, so it grows in place.
    let own = false;
    for (let i = node.elements.length - 1; i >= 0; i--) {
      const element = node.elements[i];
      this.#visit(element, after, outer);
      if (!this.nullable(element)) {
        after = this.first(element);
        own = false;
      } else if (this.first(element) !== this.#space.empty) {
        if (!own) after = this.#space.copy(after);
        own = true;
        this.#space.add(after, this.first(element));
      }
    }
  }

  /** Alternatives under a repetition that can start alike: `(a|aa)+`, `(\w|\d)*`. One sweep, not every pair. */
  #checkAlternatives(alternatives: readonly AST.Alternative[], outer: Repetition): void {
    const seen = this.#space.builder();
    for (let i = 0; i < alternatives.length; i++) {
      const first = this.first(alternatives[i]);
      if (this.#space.overlaps(first, seen)) {
        const j = alternatives.findIndex((earlier) => this.#space.overlaps(this.first(earlier), first));
        this.#report(
          alternatives[j].start,
          `the alternatives ${JSON.stringify(shown(alternatives[j].raw))} and ${JSON.stringify(shown(alternatives[i].raw))} inside the repetition ${shown(outer.raw)} can start with the same character, so ${FIX}; make them exclusive (factor the common start out, e.g. a(?:b|c) instead of ab|ac, or merge single characters into one class such as [\\w-])`,
        );
        return;
      }
      this.#space.add(seen, first);
    }
  }
}

/**
 * What would make the pattern catastrophic under a backtracking engine, or undefined. Catches,
 * under any repetition that can run more than once: a repetition inside it that can stop at a
 * character it could also continue with (nested quantifiers, `(a+)+`, `(\w+\s?)*`, `(.*a){12}`),
 * and alternatives that can start with the same character (`(a|aa)+`, `(\d|\w)*`). Characters
 * are compared soundly (char-space.ts): when the check cannot tell two sets apart (two
 * property escapes it cannot compare), it takes them to overlap. Not polynomial cases outside a
 * repetition (`\s*\s*$`, `a*a*`): our matcher is linear anyway.
 */
export function findCatastrophicPart(pattern: ParsedPattern): string | undefined {
  const { repetitions, atoms } = repetitionsToCheck(pattern.ast);
  if (repetitions.length === 0) return undefined;
  const analysis = new Analysis(new CharSpace(atoms, pattern.flags, pattern.source.length));
  for (const repetition of repetitions) analysis.check(repetition);
  return analysis.problem?.message;
}
