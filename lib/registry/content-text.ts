import type { ContentPart } from './content-parts.ts';
import type { JsonObject } from './json.ts';

/** Bytes a base64 string decodes to, for a placeholder that says how big the thing was. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * One part as text. The model reads text; binary content becomes a short placeholder rather
 * than kilobytes of base64 it cannot see anyway.
 */
export function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.mimeType} ${part.type}, ${base64Bytes(part.data)} bytes base64]`;
    case 'resource_link':
      return `[resource ${part.uri}]`;
    case 'resource': {
      const resource = part.resource;
      // An embedded text resource is the answer itself (a file's contents, say): keep its text.
      if ('text' in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${base64Bytes(resource.blob)} bytes base64]`;
    }
  }
}

/**
 * Content parts as one text: the parts joined with newlines, and the structured content as
 * JSON when no part is text (MCP servers are asked to mirror it in a text block; those that do
 * not would otherwise answer nothing readable). `render` lets a provider format say more
 * about a part it could not send.
 */
export function contentText(parts: ContentPart[], structured?: JsonObject, render: (part: ContentPart) => string = partText): string {
  const texts = parts.map(render);
  if (!parts.some((part) => part.type === 'text') && structured !== undefined) texts.push(JSON.stringify(structured));
  return texts.join('\n');
}

/** Characters of a tool's own error report kept as the error message (an error is never truncated later). */
export const ERROR_TEXT_CHARS = 10_000;

/** An error result's content parts as its message, cut to ERROR_TEXT_CHARS. */
export function errorText(parts: ContentPart[], structured?: JsonObject): string {
  const text = contentText(parts, structured);
  return text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}… [${text.length - ERROR_TEXT_CHARS} more characters]` : text;
}
