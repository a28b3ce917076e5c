/**
 * The publish-time pattern check's cost on its worst shapes (each as long as a pattern may be),
 * and on a 1 MiB input schema of them, through the schema lint as publishing runs it.
 */
import { checkPattern } from '../lib/patterns/index.ts';
import { lintSchema } from '../lib/validation/schema-lint.ts';
import type { Figures } from './harness.ts';
import { round } from './harness.ts';

const MAX_SOURCE = 10_000;
const cjk = (i: number) => String.fromCodePoint(0x4e00 + (i % 20_000));

/** Repeats `part(i)` between `open` and `close` while the source stays within MAX_SOURCE characters. */
function filled(open: string, part: (i: number) => string, separator: string, close: string): string {
  const parts: string[] = [];
  let length = open.length + close.length;
  for (let i = 0; ; i++) {
    const next = part(i);
    length += next.length + (i > 0 ? separator.length : 0);
    if (length > MAX_SOURCE) break;
    parts.push(next);
  }
  return open + parts.join(separator) + close;
}

/** What the attack review found super-linear, and what else a pattern may pile up under one repetition. */
const SHAPES: Record<string, string> = {
  // One distinct character per level, 1,666 levels (the review: 13.3 s at 400, a stack overflow at 900).
  nested_groups: `${Array.from({ length: 1666 }, (_, i) => `(?:${cjk(i)}`).join('')}${')*'.repeat(1666)}`,
  nested_groups_32: `${Array.from({ length: 32 }, (_, i) => `(?:${cjk(i)}`).join('')}${')*'.repeat(32)}`,
  // Distinct alternatives (the review: 46.9 s for 999).
  alternatives_999: `(?:${Array.from({ length: 999 }, (_, i) => cjk(3 * i)).join('|')})*`,
  alternatives: filled('(?:', (i) => cjk(3 * i), '|', ')*'),
  optional_chain: filled('(?:', (i) => `${cjk(2 * i)}?`, '', `${cjk(0)})*`),
  property_escape_alternatives: filled('(?:', (i) => `[\\p{L}${cjk(7 * i)}]`, '|', ')*'),
  ranges_in_classes: filled('(?:', (i) => `[${cjk(4 * i)}-${cjk(4 * i + 1)}]x?`, '', ')+'),
  nested_repetitions: filled('(?:', (i) => `(?:${cjk(2 * i)}+${cjk(2 * i + 1)})?`, '', ')*'),
};

/** Milliseconds of one check: the median of `runs`. */
function timeCheck(source: string, runs: number): { ms: number; refused: boolean } {
  const samples: number[] = [];
  let refused = false;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    refused = checkPattern(source) !== undefined;
    samples.push(performance.now() - started);
  }
  return { ms: samples.sort((a, b) => a - b)[runs >> 1], refused };
}

/** Distinct accepted patterns (each costs the whole check), that a tenant admin may fill a manifest with. */
const MEGABYTE_SHAPES: Record<string, (i: number) => string> = {
  alternatives_900: (i) => `(?:${Array.from({ length: 900 }, (_, k) => cjk(3 * k + i)).join('|')})*`,
  nested_groups_32: (i) => `${Array.from({ length: 32 }, (_, k) => `(?:${cjk(k + i)}`).join('')}${')*'.repeat(32)}`,
  ipv6: (i) => `^(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,7}:|(?:[0-9a-f]{1,4}:){1,6}:[0-9a-f]{1,4}|::)${i}$`,
  slug: (i) => `^[a-z0-9]+(?:-[a-z0-9]+)*-${i}$`,
};

/** An input schema of one shape's patterns, just over 1,000,000 bytes of JSON. */
function megabyteSchema(make: (i: number) => string): { type: string; properties: Record<string, { type: string; pattern: string }> } {
  const properties: Record<string, { type: string; pattern: string }> = {};
  let size = 0;
  for (let i = 0; size < 1_000_000; i++) {
    properties[`p${i}`] = { type: 'string', pattern: make(i) };
    size += Buffer.byteLength(JSON.stringify({ [`p${i}`]: properties[`p${i}`] }));
  }
  return { type: 'object', properties };
}

/** Milliseconds of one lint of the schema: the median of three (a gateway process is warm). */
function timeLint(schema: unknown): { ms: number; refused: number } {
  const samples: number[] = [];
  let refused = 0;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    refused = lintSchema(schema).length;
    samples.push(performance.now() - started);
  }
  return { ms: samples.sort((a, b) => a - b)[1], refused };
}

export function checkCostFigures(figures: Figures): void {
  let worst = { shape: '', ms: 0 };
  for (const [shape, source] of Object.entries(SHAPES)) {
    const { ms, refused } = timeCheck(source, 5);
    figures[`check_${shape}_ms`] = `${round(ms)} (${source.length} chars, ${refused ? 'refused' : 'accepted'})`;
    if (ms > worst.ms) worst = { shape, ms };
  }
  figures.check_worst_case_ms = round(worst.ms);
  figures.check_worst_case_shape = worst.shape;
  let worstSchema = { shape: '', ms: 0 };
  for (const [shape, make] of Object.entries(MEGABYTE_SHAPES)) {
    const schema = megabyteSchema(make);
    const { ms, refused } = timeLint(schema);
    figures[`check_1mb_${shape}_ms`] = `${round(ms)} (${Object.keys(schema.properties).length} patterns, ${refused} refused)`;
    if (ms > worstSchema.ms) worstSchema = { shape, ms };
  }
  figures.check_1mb_worst_ms = round(worstSchema.ms);
  figures.check_1mb_worst_shape = worstSchema.shape;
  // As the attack review measured them before this check was bounded.
  figures.check_before_review = '400 levels 13.3 s, 600 levels 46 s, 900 levels HTTP 500 (stack overflow), 999 alternatives 46.9 s';
}
