import type { AST } from '@eslint-community/regexpp';
import type { CharAtom } from './char-test.ts';
import { atomRanges, isPlainClassElement, MAX_CODE_POINT, plainElementRanges, type PlainClassElement, type Ranges } from './char-ranges.ts';
import { atomCategories, type Categories } from './general-category.ts';
import type { PatternFlags } from './parse.ts';
import { PatternError } from './pattern-error.ts';
import { propertyEscapeRegExp } from './property-escapes.ts';

/**
 * A set of characters as the check sees it (the atoms one of which a character must match), by
 * number: its bits live in the space's one array (no allocation per set). Over the blocks of one
 * pattern (the code points cut at every end of every range its atoms name, so each block lies
 * wholly inside or wholly outside each such atom), a set has two bit sets, one after the other:
 * the blocks filled by atoms whose ranges are known (characters, ranges, \d \s \w, ".",
 * negations), then the blocks where an atom with a property escape may have a character (tested
 * where small, else assumed); and the General_Category values those atoms may match.
 */
export type CharSet = number;

/**
 * Most atoms fill one run of blocks (a character, a range): such a set is kept as that run, by a
 * negative number, with no bits of its own. Only sets built up from several are bit sets.
 */
const isRun = (set: CharSet) => set < 0;

/** The bits of blocks `first`..`last` that lie in word `word` of a bit set. */
function runMask(word: number, first: number, last: number): number {
  const low = word === first >>> 5 ? first & 31 : 0;
  const high = word === last >>> 5 ? last & 31 : 31;
  return (0xffffffff >>> (31 - high + low)) << low;
}

/** Blocks up to this many code points are tested against property escapes. */
const SMALL_BLOCK = 256;
/** Code points tested at most per pattern: blocks past it are assumed to meet every property escape. */
const PROBE_LIMIT = 4096;
/** Code points scanned (by the runtime's RegExp, per property escape) per pattern: this much, and this much per source character. */
const SCAN_BASE = 1024;
const SCAN_PER_SOURCE_CHARACTER = 64;
/** Words of bit sets one check may hold (16 MiB): past it the pattern is refused as too complex. */
const MAX_WORDS = 1 << 22;

function firstIndexAtLeast(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

type PropertySet = AST.CharacterUnicodePropertyCharacterSet;

/** The elements of an atom with a property escape, when it is a union of them (not negated, no strings). */
function unionElements(atom: CharAtom): ReadonlyArray<PlainClassElement | PropertySet> | undefined {
  if (atom.type === 'CharacterSet') return atom.kind === 'property' && !atom.strings ? [atom] : undefined;
  if (atom.type !== 'CharacterClass' || atom.negate) return undefined;
  const elements: Array<PlainClassElement | PropertySet> = [];
  for (const element of atom.elements) {
    if (isPlainClassElement(element) || (element.type === 'CharacterSet' && element.kind === 'property' && !element.strings)) elements.push(element);
    else return undefined;
  }
  return elements;
}

/**
 * The character sets of one pattern, compared soundly: two sets that share a code point are
 * always found to overlap. Known ranges are compared exactly; an atom with a property escape is
 * compared with a block by scanning the block's code points where it is small, and assumed to
 * meet it where it is not; two such atoms are told apart by General_Category, or assumed to meet.
 */
export class CharSpace {
  readonly #flags: PatternFlags;
  readonly #starts: Int32Array;
  /** Words per half (one bit per block). */
  readonly #words: number;
  #bits: Uint32Array;
  #categories: number[] = [0];
  readonly #atoms = new Map<string, CharSet>();
  /** First and last block of each run (set -1 is run 0). */
  readonly #runFirst: number[] = [];
  readonly #runLast: number[] = [];
  readonly #ranges = new Map<string, Ranges | undefined>();
  #scanLeft: number;
  readonly #categoryBudget: { codePoints: number };
  #probes: { text: string; blockAt: Int32Array; untested: Uint32Array } | undefined;
  readonly #propertyBlocks = new Map<string, Uint32Array>();
  /** Whether any atom has a property escape (else every set's second half is empty). */
  #unranged = false;
  /** The set with no characters. */
  readonly empty: CharSet = 0;

  constructor(atoms: readonly CharAtom[], flags: PatternFlags, sourceLength: number) {
    this.#flags = flags;
    this.#scanLeft = SCAN_BASE + SCAN_PER_SOURCE_CHARACTER * sourceLength;
    this.#categoryBudget = { codePoints: 32 + 2 * sourceLength };
    const cuts = [0];
    const cut = (ranges: Ranges) => {
      for (let i = 0; i < ranges.length; i += 2) {
        cuts.push(ranges[i]);
        if (ranges[i + 1] < MAX_CODE_POINT) cuts.push(ranges[i + 1] + 1);
      }
    };
    for (const atom of atoms) {
      const ranges = this.#rangesOf(atom);
      if (ranges) cut(ranges);
      // The plain elements beside a property escape are compared with blocks too: cut at their ends.
      else for (const element of unionElements(atom) ?? []) if (isPlainClassElement(element)) cut(plainElementRanges(element, flags));
    }
    const sorted = Int32Array.from(cuts).sort();
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i];
    this.#starts = sorted.slice(0, distinct);
    this.#words = Math.ceil(distinct / 32);
    this.#bits = new Uint32Array(2 * this.#words * 16);
  }

  /** How many blocks the pattern's ranges cut the code points into. */
  get blocks(): number {
    return this.#starts.length;
  }

  #rangesOf(atom: CharAtom): Ranges | undefined {
    if (!this.#ranges.has(atom.raw)) this.#ranges.set(atom.raw, atomRanges(atom, this.#flags));
    return this.#ranges.get(atom.raw);
  }

  /** A new set with no characters, to be filled by `add` (or by the caller, at `#offset`). */
  builder(): CharSet {
    const set = this.#categories.length;
    const needed = (set + 1) * 2 * this.#words;
    if (needed > this.#bits.length) {
      if (needed > MAX_WORDS) throw new PatternError('is too complex to check for catastrophic backtracking (too many distinct characters under too many repetitions): simplify it');
      const grown = new Uint32Array(Math.min(MAX_WORDS, 2 * needed));
      grown.set(this.#bits);
      this.#bits = grown;
    }
    this.#categories.push(0);
    return set;
  }

  #offset(set: CharSet): number {
    return set * 2 * this.#words;
  }

  /** The set of one atom (remembered by its text). */
  atom(atom: CharAtom): CharSet {
    let set = this.#atoms.get(atom.raw);
    if (set !== undefined) return set;
    const ranges = this.#rangesOf(atom);
    if (ranges?.length === 2) {
      this.#runFirst.push(firstIndexAtLeast(this.#starts, ranges[0]));
      this.#runLast.push(firstIndexAtLeast(this.#starts, ranges[1] + 1) - 1);
      set = -this.#runFirst.length;
    } else if (ranges) this.#fillBlocks(ranges, this.#bits, this.#offset((set = this.builder())));
    else {
      set = this.builder();
      this.#unranged = true;
      this.#bits.set(this.#blocksMet(atom), this.#offset(set) + this.#words);
      this.#categories[set] = atomCategories(atom, this.#flags.ignoreCase, this.#categoryBudget);
    }
    this.#atoms.set(atom.raw, set);
    return set;
  }

  /**
   * The blocks an atom with a property escape may have a character in. Tested on the small
   * blocks for a class of plain elements (characters, ranges, escapes, property escapes), each
   * property escape by one scan of the small blocks' code points; assumed everywhere else, and
   * everywhere for a negated class, under `i`, or past the scanning budget.
   */
  #blocksMet(atom: CharAtom): Uint32Array {
    const everywhere = new Uint32Array(this.#words).fill(0xffffffff);
    const elements = unionElements(atom);
    if (!elements || this.#flags.ignoreCase) return everywhere;
    const met = Uint32Array.from(this.#probeText().untested);
    for (const element of elements) {
      if (isPlainClassElement(element)) {
        this.#fillBlocks(plainElementRanges(element, this.#flags), met);
        continue;
      }
      const part = this.#propertyEscapeBlocks(element);
      if (!part) return everywhere;
      for (let i = 0; i < met.length; i++) met[i] |= part[i];
    }
    return met;
  }

  /** Sets the bits, from `at` on, of the blocks ranges fill (their ends are cut points). */
  #fillBlocks(ranges: Ranges, bits: Uint32Array, at = 0): Uint32Array {
    for (let i = 0; i < ranges.length; i += 2) {
      const last = firstIndexAtLeast(this.#starts, ranges[i + 1] + 1) - 1;
      for (let k = firstIndexAtLeast(this.#starts, ranges[i]); k <= last; k++) bits[at + (k >>> 5)] |= 1 << (k & 31);
    }
    return bits;
  }

  /** The small blocks where a property escape has a character: one scan per escape and pattern. */
  #propertyEscapeBlocks(element: PropertySet): Uint32Array | undefined {
    const known = this.#propertyBlocks.get(element.raw);
    if (known) return known;
    const { text, blockAt } = this.#probeText();
    if ((this.#scanLeft -= text.length) < 0) return undefined;
    const blocks = new Uint32Array(this.#words);
    const scan = propertyEscapeRegExp(element.raw);
    scan.lastIndex = 0;
    for (let match = scan.exec(text); match; match = scan.exec(text)) {
      const k = blockAt[match.index];
      blocks[k >>> 5] |= 1 << (k & 31);
    }
    this.#propertyBlocks.set(element.raw, blocks);
    return blocks;
  }

  /** The code points of the small blocks as one string (surrogates left out: two could pair up). */
  #probeText() {
    if (this.#probes) return this.#probes;
    const untested = new Uint32Array(this.#words);
    const parts: string[] = [];
    const blockAt: number[] = [];
    let tested = 0;
    for (let k = 0; k < this.#starts.length; k++) {
      const start = this.#starts[k];
      const end = k + 1 < this.#starts.length ? this.#starts[k + 1] - 1 : MAX_CODE_POINT;
      const size = end - start + 1;
      const small = size <= SMALL_BLOCK && (end < 0xd800 || start > 0xdfff) && tested + size <= PROBE_LIMIT;
      if (!small) {
        untested[k >>> 5] |= 1 << (k & 31);
        continue;
      }
      tested += size;
      for (let c = start; c <= end; c++) {
        const text = String.fromCodePoint(c);
        parts.push(text);
        for (let unit = 0; unit < text.length; unit++) blockAt.push(k);
      }
    }
    return (this.#probes = { text: parts.join(''), blockAt: Int32Array.from(blockAt), untested });
  }

  union(a: CharSet, b: CharSet): CharSet {
    if (a === this.empty) return b;
    if (b === this.empty) return a;
    const set = this.builder();
    this.add(set, a);
    this.add(set, b);
    return set;
  }

  /** A new set holding `from`'s characters, to be added to. */
  copy(from: CharSet): CharSet {
    const set = this.builder();
    this.add(set, from);
    return set;
  }

  /** Adds `from`'s characters to `into` (a set from `builder` that nothing else holds yet). */
  add(into: CharSet, from: CharSet): void {
    if (from === this.empty) return;
    if (isRun(from)) {
      const offset = this.#offset(into);
      const [first, last] = this.#runEnds(from);
      for (let word = first >>> 5; word <= last >>> 5; word++) this.#bits[offset + word] |= runMask(word, first, last);
      return;
    }
    const bits = this.#bits;
    const to = this.#offset(into);
    const source = this.#offset(from);
    // Without property escapes the second half stays empty.
    const words = this.#unranged ? 2 * this.#words : this.#words;
    for (let i = 0; i < words; i++) bits[to + i] |= bits[source + i];
    this.#categories[into] |= this.#categories[from];
  }

  /** Whether the sets may share a character (never false when they do). */
  overlaps(a: CharSet, b: CharSet): boolean {
    if (isRun(a) && isRun(b)) {
      const [firstA, lastA] = this.#runEnds(a);
      const [firstB, lastB] = this.#runEnds(b);
      return firstA <= lastB && firstB <= lastA;
    }
    if (isRun(a) || isRun(b)) return isRun(a) ? this.#runMeets(a, b) : this.#runMeets(b, a);
    if ((this.#categories[a] & this.#categories[b]) !== 0) return true;
    const bits = this.#bits;
    const words = this.#words;
    const x = this.#offset(a);
    const y = this.#offset(b);
    if (!this.#unranged) {
      for (let i = 0; i < words; i++) if ((bits[x + i] & bits[y + i]) !== 0) return true;
      return false;
    }
    for (let i = 0; i < words; i++) {
      // Known ranges meet known ranges or blocks a property escape may touch; two property escapes meet by category.
      if ((bits[x + i] & (bits[y + i] | bits[y + words + i])) !== 0 || (bits[x + words + i] & bits[y + i]) !== 0) return true;
    }
    return false;
  }

  /** Whether a run of known blocks meets a bit set: its known blocks, or blocks a property escape may touch. */
  #runMeets(run: CharSet, set: CharSet): boolean {
    const offset = this.#offset(set);
    const [first, last] = this.#runEnds(run);
    for (let word = first >>> 5; word <= last >>> 5; word++) {
      const met = this.#bits[offset + word] | (this.#unranged ? this.#bits[offset + this.#words + word] : 0);
      if ((met & runMask(word, first, last)) !== 0) return true;
    }
    return false;
  }

  /** The first and last block of a run. */
  #runEnds(run: CharSet): [number, number] {
    return [this.#runFirst[-1 - run], this.#runLast[-1 - run]];
  }
}
