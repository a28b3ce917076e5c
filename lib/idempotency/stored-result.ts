import type { ToolResult } from '../dispatch/call.ts';
import { binaryData, isBinaryPart, type ContentPart } from '../registry/content-parts.ts';
import { partText } from '../registry/content-text.ts';

/**
 * Base64 characters of binary parts a stored result keeps. Stored results must fit every
 * store's item limit (DynamoDB: 400 KB, gzipped; base64 of an image barely compresses) next
 * to up to 50,000 characters of text and 256 KiB of structured content.
 */
export const STORED_BINARY_CHARS = 128 * 1024;

/**
 * The result as kept for idempotency replay: binary parts up to STORED_BINARY_CHARS in order;
 * any beyond that are replaced by a text note, so a big screenshot never makes the record too
 * large to store (which would leave the call without a stored outcome).
 */
export function storableResult(result: ToolResult): ToolResult {
  if (!result.content_parts?.some(isBinaryPart)) return result;
  let kept = 0;
  const parts = result.content_parts.map((part): ContentPart => {
    if (!isBinaryPart(part)) return part;
    const chars = binaryData(part).length;
    if (kept + chars <= STORED_BINARY_CHARS) {
      kept += chars;
      return part;
    }
    return { type: 'text', text: `${partText(part)} [not kept for replay: a stored result keeps at most ${STORED_BINARY_CHARS / 1024} KiB of binary content; call the tool again to get it]` };
  });
  return { ...result, content_parts: parts };
}
