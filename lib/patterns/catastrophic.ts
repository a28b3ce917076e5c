import type { AST } from '@eslint-community/regexpp';
import { alternativesOf } from './ast.ts';
import type { CharAtom } from './char-test.ts';
import { NativeRegExp } from './native-regexp.ts';
import type { ParsedPattern } from './parse.ts';

/**
 * Characters two atoms are compared on: all of ASCII and Latin, one or more of each kind of
 * space, digit, letter, symbol and plane beyond, and every character the pattern names itself
 * (and its neighbours, so that ranges meeting at an end are seen to meet).
 */
const REPRESENTATIVES = [
  0x0391, 0x03b1, 0x0410, 0x0430, 0x05d0, 0x0627, 0x0660, 0x0966, 0x0e01, 0x1680, 0x1e9e, 0x2000, 0x200b, 0x2028, 0x2029, 0x202f, 0x205f,
  0x2160, 0x212a, 0x2460, 0x3000, 0x3042, 0x30a2, 0x4e00, 0xac00, 0xe000, 0xfeff, 0xff10, 0xff21, 0xfffd, 0x10000, 0x1d400, 0x1f600, 0x10ffff,
];

type Node = AST.Node;
type Repetition = AST.Quantifier;

const isAtom = (node: Node): node is CharAtom =>
  node.type === 'Character' || node.type === 'CharacterSet' || node.type === 'CharacterClass' || node.type === 'ExpressionCharacterClass';

/** Whether `node` can match the empty string. */
function nullable(node: Node): boolean {
  if (isAtom(node)) return false;
  if (node.type === 'Alternative') return node.elements.every(nullable);
  if (node.type === 'Quantifier') return node.min === 0 || nullable(node.element);
  const alternatives = alternativesOf(node);
  return alternatives ? alternatives.some(nullable) : true;
}

/** The atoms one of which the first character `node` consumes must match. */
function firstAtoms(node: Node): CharAtom[] {
  if (isAtom(node)) return [node];
  if (node.type === 'Alternative') {
    const atoms: CharAtom[] = [];
    for (const element of node.elements) {
      atoms.push(...firstAtoms(element));
      if (!nullable(element)) break;
    }
    return atoms;
  }
  if (node.type === 'Quantifier') return node.max === 0 ? [] : firstAtoms(node.element);
  return (alternativesOf(node) ?? []).flatMap(firstAtoms);
}

/** The atoms the character after `inner` may match, looking no further than one more turn of `outer`. */
function followWithin(inner: Repetition, outer: Repetition): CharAtom[] {
  const atoms: CharAtom[] = [];
  let node: Node = inner;
  for (;;) {
    const parent: Node | null = node.parent;
    if (parent?.type === 'Alternative') {
      const rest = parent.elements.slice(parent.elements.indexOf(node as AST.Element) + 1);
      for (const element of rest) {
        atoms.push(...firstAtoms(element));
        if (!nullable(element)) return atoms;
      }
      node = parent.parent;
    } else if (parent?.type === 'Quantifier') {
      if (parent.max > 1) atoms.push(...firstAtoms(parent.element));
      if (parent === outer) return atoms;
      node = parent;
    } else return atoms;
  }
}

function descendants(node: Node): Node[] {
  const children: Node[] =
    node.type === 'Alternative' ? node.elements : node.type === 'Quantifier' ? [node.element] : (alternativesOf(node) ?? []);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Whether two sets of atoms share a character (compared on the representative characters). */
class Overlaps {
  readonly #pattern: ParsedPattern;
  #probes: { text: string; indexAt: Map<number, number>; count: number } | undefined;
  readonly #members = new Map<CharAtom, Uint8Array>();

  constructor(pattern: ParsedPattern) {
    this.#pattern = pattern;
  }

  /** The probe characters as one string (surrogates left out, so no two probes pair up). */
  #probeText() {
    if (this.#probes) return this.#probes;
    const named = new Set<number>();
    for (const node of [this.#pattern.ast, ...descendants(this.#pattern.ast)]) {
      if (node.type === 'CharacterClass' || node.type === 'Character') collectCharacters(node, named);
    }
    const probes = new Set<number>(REPRESENTATIVES);
    for (let c = 0; c <= 0x2ff; c++) probes.add(c);
    for (const c of named) for (const near of [c - 1, c, c + 1]) if (near >= 0 && near <= 0x10ffff && (near < 0xd800 || near > 0xdfff)) probes.add(near);
    let text = '';
    const indexAt = new Map<number, number>();
    let count = 0;
    for (const c of probes) {
      indexAt.set(text.length, count++);
      text += String.fromCodePoint(c);
    }
    return (this.#probes = { text, indexAt, count });
  }

  /** Which probes the atom matches: one scan of the probe string by the runtime's RegExp. */
  #membership(atom: CharAtom): Uint8Array {
    const known = this.#members.get(atom);
    if (known) return known;
    const { text, indexAt, count } = this.#probeText();
    const members = new Uint8Array(count);
    const scan = new NativeRegExp(atom.raw, `${this.#pattern.flags.text.replace('m', '')}g`);
    for (const match of text.matchAll(scan)) members[indexAt.get(match.index) as number] = 1;
    this.#members.set(atom, members);
    return members;
  }

  between(a: readonly CharAtom[], b: readonly CharAtom[]): boolean {
    if (a.length === 0 || b.length === 0) return false;
    const left = a.map((atom) => this.#membership(atom));
    const right = b.map((atom) => this.#membership(atom));
    for (let i = 0; i < left[0].length; i++) {
      if (left.some((m) => m[i] === 1) && right.some((m) => m[i] === 1)) return true;
    }
    return false;
  }
}

function collectCharacters(node: AST.CharacterClass | AST.Character, into: Set<number>): void {
  if (node.type === 'Character') {
    into.add(node.value);
    return;
  }
  for (const element of node.elements) {
    if (element.type === 'Character') into.add(element.value);
    else if (element.type === 'CharacterClassRange') into.add(element.min.value).add(element.max.value);
    else if (element.type === 'CharacterClass') collectCharacters(element, into);
  }
}

const FIX = "a backtracking engine (JavaScript's own, or any client's) can take exponential time on a short input";

/** A repetition inside `outer` whose end is ambiguous: `(a+)+`, `(\w+\s?)*`, `(a*b*)*`. */
function nestedRepetition(outer: Repetition, overlaps: Overlaps): string | undefined {
  for (const node of descendants(outer.element)) {
    if (node.type !== 'Quantifier' || node.max === node.min) continue;
    if (overlaps.between(firstAtoms(node.element), followWithin(node, outer))) {
      return `the repetition ${node.raw} inside the repetition ${outer.raw} can match the same characters in more than one way, so ${FIX}; make what repeats and what follows it exclusive (e.g. (?:[a-z]+-)* instead of (?:[a-z]+-?)*) or remove one of the repetitions`;
    }
  }
  return undefined;
}

/** Alternatives under a repetition that can start alike: `(a|aa)+`, `(\w|\d)*`. */
function overlappingAlternatives(outer: Repetition, overlaps: Overlaps): string | undefined {
  for (const node of [outer.element, ...descendants(outer.element)]) {
    const alternatives = alternativesOf(node);
    if (!alternatives || alternatives.length < 2) continue;
    const firsts = alternatives.map(firstAtoms);
    for (let i = 0; i < alternatives.length; i++) {
      for (let j = i + 1; j < alternatives.length; j++) {
        if (overlaps.between(firsts[i], firsts[j])) {
          return `the alternatives ${JSON.stringify(alternatives[i].raw)} and ${JSON.stringify(alternatives[j].raw)} inside the repetition ${outer.raw} can start with the same character, so ${FIX}; make them exclusive (factor the common start out, e.g. a(?:b|c) instead of ab|ac, or merge single characters into one class such as [\\w-])`;
        }
      }
    }
  }
  return undefined;
}

/**
 * What would make the pattern catastrophic under a backtracking engine, or undefined. Catches,
 * under any repetition that can run more than once: a repetition inside it that can stop at a
 * character it could also continue with (nested quantifiers, `(a+)+`, `(\w+\s?)*`, `(.*a){12}`),
 * and alternatives that can start with the same character (`(a|aa)+`, `(\d|\w)*`). Not
 * polynomial cases outside a repetition (`\s*\s*$`, `a*a*`): our matcher is linear anyway.
 */
export function findCatastrophicPart(pattern: ParsedPattern): string | undefined {
  const overlaps = new Overlaps(pattern);
  for (const node of descendants(pattern.ast)) {
    if (node.type !== 'Quantifier' || node.max <= 1) continue;
    const problem = nestedRepetition(node, overlaps) ?? overlappingAlternatives(node, overlaps);
    if (problem) return problem;
  }
  return undefined;
}
