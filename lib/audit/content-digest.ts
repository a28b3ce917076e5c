import { sha256BytesHex, sha256Hex } from '../crypto/sha256.ts';
import { decodeBase64 } from '../crypto/base64.ts';
import { binaryData, isBinaryPart, type ContentPart } from '../registry/content-parts.ts';
import type { JsonObject, JsonValue } from '../registry/json.ts';

/** Structured content beyond this many characters (as JSON) is audited as its length and SHA-256. */
export const AUDIT_STRUCTURED_CHARS = 100_000;

/** A call's content parts and structured content, as the tool answered them (checked, untruncated). */
export interface AuditedContentInput {
  parts: ContentPart[];
  structured?: JsonObject;
}

/**
 * What audit keeps of content parts: binary parts (images, audio, blob resources) as their
 * media type, size and SHA-256 of their bytes, never the bytes; text parts as their length
 * (the text itself is the result's `output`); resource links as they are. Structured content
 * is kept as JSON up to AUDIT_STRUCTURED_CHARS, its length and hash beyond.
 */
export async function auditedContent(content: AuditedContentInput): Promise<JsonObject> {
  const parts = await Promise.all(content.parts.map(auditedPart));
  return { content_parts: parts, ...(content.structured !== undefined ? await auditedStructured(content.structured) : {}) };
}

async function auditedPart(part: ContentPart): Promise<JsonObject> {
  if (isBinaryPart(part)) {
    const bytes = decodeBase64(binaryData(part));
    const digest = { bytes: bytes.byteLength, sha256: await sha256BytesHex(bytes) };
    if (part.type === 'resource') return { type: 'resource', uri: part.resource.uri, ...optional('mimeType', part.resource.mimeType), ...digest };
    return { type: part.type, mimeType: part.mimeType, ...digest };
  }
  switch (part.type) {
    case 'text':
      return { type: 'text', chars: part.text.length };
    case 'resource':
      return { type: 'resource', uri: part.resource.uri, ...optional('mimeType', part.resource.mimeType), chars: 'text' in part.resource ? part.resource.text.length : 0 };
    default:
      return { ...(part as unknown as JsonObject) };
  }
}

async function auditedStructured(structured: JsonObject): Promise<JsonObject> {
  const json = JSON.stringify(structured);
  if (json.length <= AUDIT_STRUCTURED_CHARS) return { structured_content: structured };
  return { structured_content_length: json.length, structured_content_sha256: await sha256Hex(json) };
}

function optional(name: string, value: JsonValue | undefined): JsonObject {
  return value === undefined ? {} : { [name]: value };
}
