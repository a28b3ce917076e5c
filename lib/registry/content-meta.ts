import { isJsonObject, type JsonObject } from './json.ts';

/** `_meta` key prefixes a tool's output may not set: toolgate's own, and those MCP reserves. */
const RESERVED_PREFIXES = ['toolgate/', 'io.modelcontextprotocol/'];

/** Characters of JSON one content part's `_meta` may hold. */
export const MAX_PART_META_CHARS = 8 * 1024;
/** Characters of JSON a result's `_meta` may hold. */
export const MAX_RESULT_META_CHARS = 16 * 1024;
/**
 * Characters of JSON the metadata of all of a result's parts (their `_meta`, links' icons) may
 * hold together: a stored result must stay small enough for every store (stored-result.ts).
 */
export const MAX_PARTS_METADATA_CHARS = 16 * 1024;

export const isReservedMetaKey = (key: string): boolean => RESERVED_PREFIXES.some((prefix) => key.startsWith(prefix));

/** What is left of a result's room for metadata; a piece that does not fit is dropped whole. */
export class MetadataBudget {
  #left: number;

  constructor(chars: number) {
    this.#left = chars;
  }

  /** Whether `value` fits (at most `maxChars` of JSON, and what is left), taking its room if so. */
  take(value: unknown, maxChars: number): boolean {
    const chars = JSON.stringify(value).length;
    if (chars > maxChars || chars > this.#left) return false;
    this.#left -= chars;
    return true;
  }
}

/**
 * A tool's `_meta` (on a content part or a whole result) as toolgate passes it on: its keys
 * without the reserved ones, so no tool can speak for toolgate or the protocol; none when it has
 * nothing left or does not fit the budget (it is metadata, not payload).
 */
export function passedMeta(value: JsonObject | undefined, maxChars: number, budget = new MetadataBudget(maxChars)): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const kept = Object.entries(value).filter(([key]) => !isReservedMetaKey(key));
  if (kept.length === 0) return undefined;
  const meta = Object.fromEntries(kept);
  return budget.take(meta, maxChars) ? meta : undefined;
}
