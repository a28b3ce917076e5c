import { binaryData, binaryMimeType, isBinaryPart, type BinaryPart, type ContentPart } from '../../registry/content-parts.ts';
import { contentText, partText } from '../../registry/content-text.ts';
import type { ToolResult } from '../call.ts';

/** Raster images every provider that takes images accepts. */
export const PROVIDER_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A part a format cannot carry, as text the model reads: what it was, and why it is not there. */
export function notSent(part: ContentPart, why: string): string {
  return `${partText(part)} [not sent: ${why}]`;
}

/** The binary part is an image of a type providers accept. */
export function isProviderImage(part: ContentPart): part is Extract<BinaryPart, { type: 'image' }> {
  return part.type === 'image' && PROVIDER_IMAGE_TYPES.includes(part.mimeType.toLowerCase());
}

/** The binary part is a PDF (an embedded resource blob). */
export function isPdf(part: ContentPart): part is BinaryPart {
  return isBinaryPart(part) && part.type === 'resource' && binaryMimeType(part)?.toLowerCase() === 'application/pdf';
}

/** A data URL of a binary part's bytes. */
export function dataUrl(part: BinaryPart): string {
  return `data:${binaryMimeType(part) ?? 'application/octet-stream'};base64,${binaryData(part)}`;
}

/**
 * A result as text for a format that carries text only (chat-completions, Gemini): the text
 * rendering, with a note on each binary part saying it could not be sent.
 */
export function textWithNotes(result: ToolResult, why: string): string {
  if (!result.content_parts) return result.content;
  return contentText(result.content_parts, result.structured_content, (part) => (isBinaryPart(part) ? notSent(part, why) : partText(part)));
}

/**
 * The parts a format renders one by one, with the structured content as a JSON text part when
 * no part is text (as in the text rendering).
 */
export function partsWithStructured(result: ToolResult): ContentPart[] {
  const parts = result.content_parts ?? [{ type: 'text', text: result.content }];
  if (result.structured_content === undefined || parts.some((part) => part.type === 'text')) return parts;
  return [...parts, { type: 'text', text: JSON.stringify(result.structured_content) }];
}
