import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContentOutput } from '../content-parts.ts';
import { readToolResultBody } from '../content-read.ts';
import { contentText } from '../content-text.ts';

/**
 * An upstream `tools/call` result as toolgate's content parts and structured content. The SDK
 * has already checked the shapes; reading them again drops what toolgate does not carry
 * (`annotations`, `_meta`) and types the parts.
 */
export function mcpResultOutput(result: Pick<CallToolResult, 'content' | 'structuredContent'>): ContentOutput {
  return readToolResultBody({ content: result.content ?? [], ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) }).output;
}

/** An upstream result as one text (an upstream error's message, say). */
export function mcpResultText(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const output = mcpResultOutput(result);
  return contentText(output.content, output.structured);
}
