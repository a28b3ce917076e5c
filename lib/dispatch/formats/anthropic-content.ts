import { binaryData, isBinaryPart, type ContentPart } from '../../registry/content-parts.ts';
import { partText } from '../../registry/content-text.ts';
import type { ToolResult } from '../call.ts';
import { isPdf, isProviderImage, notSent, partsWithStructured } from './content-render.ts';

/** A block of a `tool_result`'s content (the @anthropic-ai/sdk ToolResultBlockParam shapes toolgate uses). */
export type AnthropicToolResultBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'; data: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string } };

/**
 * A result's `tool_result` content: the text as a string when it has no image or PDF, else
 * blocks: text blocks, image blocks for PNG/JPEG/GIF/WebP, document blocks for PDF resources,
 * and a text note for a part Anthropic cannot take (audio, other files).
 */
export function anthropicToolResultContent(result: ToolResult): string | AnthropicToolResultBlock[] {
  const parts = result.content_parts;
  if (!parts || !parts.some((part) => isProviderImage(part) || isPdf(part))) return result.content_parts ? textOnly(result) : result.content;
  return partsWithStructured(result).map(block);
}

function block(part: ContentPart): AnthropicToolResultBlock {
  if (isProviderImage(part)) return { type: 'image', source: { type: 'base64', media_type: part.mimeType.toLowerCase() as 'image/png', data: part.data } };
  if (isPdf(part)) return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: binaryData(part) } };
  return { type: 'text', text: isBinaryPart(part) ? notSent(part, WHY) : partText(part) };
}

const WHY = 'Anthropic tool results take PNG, JPEG, GIF and WebP images and PDF documents only';

function textOnly(result: ToolResult): string {
  return partsWithStructured(result)
    .map((part) => (isBinaryPart(part) ? notSent(part, WHY) : partText(part)))
    .join('\n');
}
