import { sha256Hex } from '../crypto/sha256.ts';
import { StoreUnavailableError, type Store } from './store.ts';

/**
 * A long text kept in a store as parts: records `<prefix>/<i>` of at most PART_CHARS characters
 * each, described by a head (how many parts, how many characters, the whole text's SHA-256) that
 * the caller keeps in its own record. Parts keep every store's record small: a DynamoDB item
 * holds at most 400 KB (and dynamodb/json.ts refuses more than 380 KiB gzipped), an Upstash
 * request 1 MB on the free plan. PART_CHARS characters are at most 4 bytes each in UTF-8, 360 KB,
 * so a part fits even uncompressed. Reading checks every part against the head: a missing,
 * truncated or changed part is an error, never part of a text.
 */
export const PART_CHARS = 90_000;

/** More parts than this is not a head this gateway wrote (a 32 MiB manifest is about 370 parts). */
const MAX_PARTS = 10_000;

export interface PartsHead {
  parts: number;
  chars: number;
  sha256: string;
}

/** A stored record (or a text's parts) missing or not what it says it is: the store answers garbage. */
export class DamagedRecordError extends StoreUnavailableError {
  constructor(store: string, what: string, problem: string) {
    super(store, `${what} is damaged in the store: ${problem}`);
    this.name = 'DamagedRecordError';
  }
}

const partKey = (prefix: string, index: number) => `${prefix}/${index}`;

/** Cuts `text` into parts of at most PART_CHARS characters. */
export function cutIntoParts(text: string): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += PART_CHARS) parts.push(text.slice(at, at + PART_CHARS));
  return parts;
}

/** Writes the parts (in parallel) and returns the head to keep; write the head after this returns, so a reader that finds it finds every part. */
export async function writeParts(store: Store, prefix: string, state: string, text: string): Promise<PartsHead> {
  const parts = cutIntoParts(text);
  await Promise.all(parts.map((chunk, i) => store.put(partKey(prefix, i), { state, expires_at: 0, data: { text: chunk } })));
  return { parts: parts.length, chars: text.length, sha256: await sha256Hex(text) };
}

/** Removes the parts a head describes (those already gone are skipped). */
export async function removeParts(store: Store, prefix: string, state: string, head: Pick<PartsHead, 'parts'>): Promise<void> {
  await Promise.all(Array.from({ length: head.parts }, (_, i) => store.remove(partKey(prefix, i), { state })));
}

/** Whether `value` is a head this module wrote (the shape only: reading checks the parts). */
export function isPartsHead(value: unknown): value is PartsHead {
  const head = value as Partial<PartsHead> | null;
  if (typeof head !== 'object' || head === null || typeof head.sha256 !== 'string' || !Number.isSafeInteger(head.parts) || !Number.isSafeInteger(head.chars)) return false;
  const [parts, chars] = [head.parts as number, head.chars as number];
  // Every part but the last is full: the length says how many parts there are.
  return parts >= 1 && parts <= MAX_PARTS && chars > (parts - 1) * PART_CHARS && chars <= parts * PART_CHARS;
}

/**
 * The whole text the head describes, read in parallel and checked: every part present and of its
 * length, and the whole of the head's length and SHA-256. Throws DamagedRecordError naming `what`
 * and the first problem otherwise.
 */
export async function readParts(store: Store, prefix: string, state: string, head: PartsHead, what: string): Promise<string> {
  const records = await Promise.all(Array.from({ length: head.parts }, (_, i) => store.get(partKey(prefix, i))));
  const texts: string[] = [];
  for (const [i, record] of records.entries()) {
    const text = record?.state === state ? record.data.text : undefined;
    if (typeof text !== 'string') throw new DamagedRecordError(store.name, what, `part ${i + 1} of ${head.parts} is missing`);
    const expected = i < head.parts - 1 ? PART_CHARS : head.chars - PART_CHARS * (head.parts - 1);
    if (text.length !== expected) throw new DamagedRecordError(store.name, what, `part ${i + 1} of ${head.parts} has ${text.length} characters, not ${expected}`);
    texts.push(text);
  }
  const whole = texts.join('');
  if ((await sha256Hex(whole)) !== head.sha256) throw new DamagedRecordError(store.name, what, 'its parts do not add up to the text that was written (SHA-256 differs)');
  return whole;
}
