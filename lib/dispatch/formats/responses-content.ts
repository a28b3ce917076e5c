import { isBinaryPart, type ContentPart } from '../../registry/content-parts.ts';
import { partText } from '../../registry/content-text.ts';
import type { ToolResult } from '../call.ts';
import { dataUrl, isPdf, isProviderImage, notSent, partsWithStructured } from './content-render.ts';

/** An item of a Responses `function_call_output.output` list (openai's ResponseFunctionCallOutputItem shapes toolgate uses). */
export type ResponsesContentItem =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string }
  | { type: 'input_file'; file_data: string; filename: string };

const WHY = 'Responses tool output takes PNG, JPEG, GIF and WebP images and PDF files only';

/**
 * A result as a Responses API `function_call_output.output`: its text as a string when it has
 * no image or PDF; else a list of `input_text`, `input_image` (a base64 data URL) and
 * `input_file` (a PDF as a data URL) items, with a text note for a part that cannot be sent.
 */
export function responsesFunctionCallOutput(result: ToolResult): string | ResponsesContentItem[] {
  const parts = result.content_parts;
  if (!parts || !parts.some((part) => isProviderImage(part) || isPdf(part))) {
    return parts ? partsWithStructured(result).map(text).join('\n') : result.content;
  }
  return partsWithStructured(result).map(item);
}

function item(part: ContentPart): ResponsesContentItem {
  if (isProviderImage(part)) return { type: 'input_image', image_url: dataUrl(part) };
  if (isPdf(part) && part.type === 'resource') return { type: 'input_file', file_data: dataUrl(part), filename: fileName(part.resource.uri) };
  return { type: 'input_text', text: text(part) };
}

function text(part: ContentPart): string {
  return isBinaryPart(part) ? notSent(part, WHY) : partText(part);
}

/** The last path segment of a resource URI, which OpenAI shows as the file's name. */
function fileName(uri: string): string {
  const last = uri.split(/[/?#]/).filter(Boolean).pop() ?? '';
  return /^[\w.-]{1,100}$/.test(last) ? last : 'resource.pdf';
}
