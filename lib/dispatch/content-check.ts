import { checkBase64 } from '../crypto/base64.ts';
import { binaryData, binaryMimeType, ContentOutput, isBinaryPart, type BinaryPart, type ContentPart } from '../registry/content-parts.ts';
import type { JsonObject } from '../registry/json.ts';

/** Bytes one binary part may hold (a screenshot fits; a video does not). */
export const MAX_PART_BYTES = 4 * 1024 * 1024;
/** Bytes of binary parts one result may hold. */
export const MAX_RESULT_BINARY_BYTES = 8 * 1024 * 1024;
/** Parts one result may hold; the rest are dropped with a note. */
export const MAX_PARTS = 256;
/** Characters of a resource's URI: a link, not a payload (a link's own text counts toward max_chars: lib/tools/truncate.ts). */
export const MAX_URI_CHARS = 8 * 1024;
/** Characters of structured content (as JSON) one result may hold. */
export const MAX_STRUCTURED_CHARS = 256 * 1024;

/** Content parts after the checks: each dropped part replaced by a text note saying why. */
export interface CheckedContent {
  parts: ContentPart[];
  structured?: JsonObject;
  /** How many parts (or the structured content) were dropped. */
  dropped: number;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i;

/** The leading bytes of the raster formats every provider accepts, to catch a mislabelled part. */
const SIGNATURES: Record<string, (head: Uint8Array) => boolean> = {
  'image/png': (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (h) => startsWith(h, [0xff, 0xd8, 0xff]),
  'image/gif': (h) => startsWith(h, [0x47, 0x49, 0x46, 0x38]),
  'image/webp': (h) => startsWith(h, [0x52, 0x49, 0x46, 0x46]) && startsWith(h.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};

/**
 * Checks a tool's content parts, whoever produced them (an upstream MCP server, an http tool, a
 * client): at most MAX_PARTS parts; each binary part valid standard base64 of at most
 * MAX_PART_BYTES, MAX_RESULT_BINARY_BYTES in all; an image labelled `image/*` (not SVG, which
 * can carry script) whose bytes match its label for PNG, JPEG, GIF and WebP; audio labelled
 * `audio/*`. A part that fails is replaced by a text note the model reads; nothing fails the call.
 */
export function checkContent(output: ContentOutput): CheckedContent {
  const parts: ContentPart[] = [];
  let dropped = 0;
  let binaryBytes = 0;
  for (const part of output.content.slice(0, MAX_PARTS)) {
    const resourceProblem = part.type === 'resource' ? resourceMetadataProblem(part) : undefined;
    if (resourceProblem) {
      parts.push({ type: 'text', text: `[resource part dropped: ${resourceProblem}]` });
      dropped++;
      continue;
    }
    if (!isBinaryPart(part)) {
      parts.push(part);
      continue;
    }
    const bytes = decodedBytes(binaryData(part));
    const problem = binaryProblem(part, bytes, binaryBytes);
    if (problem) {
      parts.push({ type: 'text', text: `[${describe(part)} dropped: ${problem}]` });
      dropped++;
      continue;
    }
    binaryBytes += bytes;
    parts.push(part);
  }
  const over = output.content.length - MAX_PARTS;
  if (over > 0) {
    parts.push({ type: 'text', text: `[${over} more content parts dropped: a result holds at most ${MAX_PARTS}]` });
    dropped += over;
  }
  const structured = output.structured;
  if (structured !== undefined) {
    const chars = JSON.stringify(structured).length;
    if (chars > MAX_STRUCTURED_CHARS) {
      parts.push({ type: 'text', text: `[structured content of ${chars} characters dropped: at most ${MAX_STRUCTURED_CHARS} are kept]` });
      return { parts, dropped: dropped + 1 };
    }
  }
  return { parts, ...(structured !== undefined ? { structured } : {}), dropped };
}

/** An embedded resource's URI and media type are labels, bounded like one (its text is truncated with the text parts). */
function resourceMetadataProblem(part: Extract<ContentPart, { type: 'resource' }>): string | undefined {
  const { uri, mimeType } = part.resource;
  if (uri.length > MAX_URI_CHARS) return `its uri has ${uri.length} characters, more than the ${MAX_URI_CHARS} a resource's uri may have`;
  if (mimeType !== undefined && !MEDIA_TYPE.test(mimeType)) return 'its mimeType is not a media type (type/subtype)';
  return undefined;
}

function binaryProblem(part: BinaryPart, bytes: number, earlierBytes: number): string | undefined {
  // Sizes first, from the length alone: a huge payload is never scanned.
  if (bytes > MAX_PART_BYTES) return `${bytes} bytes, more than the ${MAX_PART_BYTES / 1024 / 1024} MiB a part may hold`;
  if (earlierBytes + bytes > MAX_RESULT_BINARY_BYTES) return `the result's binary parts would exceed ${MAX_RESULT_BINARY_BYTES / 1024 / 1024} MiB`;
  const data = binaryData(part);
  try {
    checkBase64(data);
  } catch {
    return 'its data is not standard base64';
  }
  const mimeType = binaryMimeType(part);
  if (mimeType !== undefined && !MEDIA_TYPE.test(mimeType)) return 'its mimeType is not a media type (type/subtype)';
  if (part.type === 'audio' && !part.mimeType.toLowerCase().startsWith('audio/')) return `"${part.mimeType}" is not an audio media type`;
  if (part.type === 'image') return imageProblem(part.mimeType.toLowerCase(), data);
  return undefined;
}

function imageProblem(mimeType: string, data: string): string | undefined {
  if (!mimeType.startsWith('image/')) return `"${mimeType}" is not an image media type`;
  if (mimeType === 'image/svg+xml') return 'SVG images are not passed on (they can carry script)';
  const matches = SIGNATURES[mimeType];
  if (matches && !matches(decodeHead(data))) return `its bytes are not ${mimeType}`;
  return undefined;
}

/** What standard base64 decodes to, from its length alone (whitespace makes it invalid anyway). */
function decodedBytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The first 12 bytes (16 base64 characters) of a checked base64 string. */
function decodeHead(data: string): Uint8Array {
  const binary = atob(data.slice(0, 16));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

function describe(part: BinaryPart): string {
  const mimeType = binaryMimeType(part);
  const label = mimeType && MEDIA_TYPE.test(mimeType) ? `${mimeType} ` : '';
  return part.type === 'resource' ? `resource ${part.resource.uri.slice(0, 200)} (${label.trim() || 'blob'})` : `${label}${part.type} part`;
}
