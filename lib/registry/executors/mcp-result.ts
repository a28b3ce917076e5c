import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** Bytes a base64 string decodes to, for a placeholder that says how big the thing was. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * One content block as text. The model reads text; binary content becomes a short
 * placeholder rather than kilobytes of base64 it cannot see anyway.
 */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.mimeType} ${block.type}, ${base64Bytes(block.data)} bytes base64]`;
    case 'resource_link':
      return `[resource ${block.uri}]`;
    case 'resource': {
      const resource = block.resource;
      // An embedded text resource is the answer itself (a file's contents, say): keep its text.
      if ('text' in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${base64Bytes(resource.blob)} bytes base64]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/**
 * An upstream `tools/call` result as the text toolgate returns: the blocks joined with
 * newlines, and `structuredContent` as JSON when no block is text (servers are asked to
 * mirror it in a text block; those that do not would otherwise answer nothing readable).
 */
export function mcpResultText(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const blocks = result.content ?? [];
  const parts = blocks.map(blockText);
  if (!blocks.some((block) => block.type === 'text') && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}
