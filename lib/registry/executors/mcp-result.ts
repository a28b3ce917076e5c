import type { ContentOutput } from '../content-parts.ts';
import { readToolResultBody } from '../content-read.ts';
import { contentText } from '../content-text.ts';
import type { JsonObject } from '../json.ts';

/**
 * An upstream `tools/call` result (CallToolResult) as toolgate's content parts, structured
 * content, `isError` and `_meta`, checked as untrusted JSON (content-read.ts). A result without
 * `content` has none (older servers may leave it out).
 */
export function mcpResultOutput(result: JsonObject): ContentOutput {
  return readToolResultBody({ ...result, content: result.content ?? [] }).output;
}

/** An upstream result as one text (an upstream error's message, say). */
export function mcpResultText(result: JsonObject): string {
  const output = mcpResultOutput(result);
  return contentText(output.content, output.structured);
}
