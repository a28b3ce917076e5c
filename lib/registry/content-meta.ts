import { isJsonObject, type JsonObject } from './json.ts';

/** `_meta` key prefixes a tool's output may not set: toolgate's own, and those MCP reserves. */
const RESERVED_PREFIXES = ['toolgate/', 'io.modelcontextprotocol/'];

/** Characters of JSON a content part's `_meta` may hold. */
export const MAX_PART_META_CHARS = 8 * 1024;
/** Characters of JSON a result's `_meta` may hold. */
export const MAX_RESULT_META_CHARS = 32 * 1024;

export const isReservedMetaKey = (key: string): boolean => RESERVED_PREFIXES.some((prefix) => key.startsWith(prefix));

/**
 * A tool's `_meta` (on a content part or a whole result) as toolgate passes it on: its keys
 * without the reserved ones, so no tool can speak for toolgate or the protocol; none when it
 * is not an object, has nothing left, or is larger than `maxChars` of JSON (metadata, not payload).
 */
export function passedMeta(value: unknown, maxChars: number): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const kept = Object.entries(value).filter(([key]) => !isReservedMetaKey(key));
  if (kept.length === 0) return undefined;
  const meta = Object.fromEntries(kept);
  return JSON.stringify(meta).length <= maxChars ? meta : undefined;
}
