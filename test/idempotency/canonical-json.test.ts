import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/idempotency/canonical-json.ts';

/**
 * The definition, written the plain way: hashes of stored audit chains were taken over this text,
 * so the faster implementation must give exactly the same for every value.
 */
function reference(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('non-finite');
    return JSON.stringify(Object.is(value, -0) ? 0 : value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort().filter((key) => record[key] !== undefined);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(',')}}`;
}

const STRINGS = ['', 'plain', 'quote "', 'back\\slash', '\u0000', '\u001f', '\u007f', 'line\nbreak', '\u2028\u2029', 'é', '\ud83d\ude00', 'lone \ud800', 'lone \udfff end', '</script>'];
const NUMBERS = [0, -0, 1, -1.5, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789012345680000];

describe('canonicalJson', () => {
  it('gives the reference text for strings, numbers and keys that need escaping or ordering', () => {
    const value = {
      z: STRINGS,
      a: NUMBERS,
      '10': 'integer-like keys come in numeric order from Object.keys',
      '9': true,
      B: null,
      b: [undefined, () => 1, { skipped: undefined, kept: false }],
      ...Object.fromEntries(STRINGS.map((text, i) => [text, i])),
    };
    expect(canonicalJson(value)).toBe(reference(value));
    for (const text of STRINGS) expect(canonicalJson(text)).toBe(reference(text));
    for (const number of NUMBERS) expect(canonicalJson(number)).toBe(reference(number));
  });

  it('gives the reference text for random nested values', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
    const make = (depth: number): unknown => {
      const kind = depth > 3 ? pick(['string', 'number', 'boolean']) : pick(['string', 'number', 'boolean', 'null', 'array', 'object']);
      if (kind === 'string') return pick(STRINGS) + pick(STRINGS);
      if (kind === 'number') return pick(NUMBERS) * (random() < 0.5 ? -1 : 1);
      if (kind === 'boolean') return random() < 0.5;
      if (kind === 'null') return null;
      if (kind === 'array') return Array.from({ length: Math.floor(random() * 4) }, () => make(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 6) }, () => [pick(STRINGS) + String(Math.floor(random() * 20)), make(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const value = make(0);
      expect(canonicalJson(value)).toBe(reference(value));
    }
  });

  it('gives the reference text for key lists met again, in other orders, or beyond what it remembers', () => {
    // Sorted orders are remembered per key list: the same keys in another order, other keys after
    // the same first key, and more shapes than are remembered must each still come out sorted.
    const shapes: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 400; i++) {
      const keys = ['m', `k${i % 40}`, 'a', `z${i}`, i % 3 === 0 ? 'B' : 'b'];
      shapes.push(Object.fromEntries(keys.map((key, j) => [key, j])));
      shapes.push(Object.fromEntries([...keys].reverse().map((key, j) => [key, j])));
      shapes.push(Object.fromEntries(keys.slice(0, 3).map((key) => [key, key])));
    }
    shapes.push(Object.fromEntries([['y', 1], ['x'.repeat(100), 2], ['a', 3]]), Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${29 - i}`, i])));
    for (let pass = 0; pass < 2; pass++) for (const shape of shapes) expect(canonicalJson(shape)).toBe(reference(shape));
  });

  it('refuses non-finite numbers', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(TypeError);
  });
});
