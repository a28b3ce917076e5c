import type { ToolResult } from '../call.ts';
import { anthropicToolResultContent, type AnthropicToolResultBlock } from './anthropic-content.ts';
import { asRecord, requireArray, requireString, type ProviderFormat } from './provider-format.ts';

/** The user message carrying a Messages API `tool_result` block per result. */
export interface AnthropicToolResultMessage {
  role: 'user';
  content: Array<{ type: 'tool_result'; tool_use_id: string; content: string | AnthropicToolResultBlock[]; is_error: boolean }>;
}

/** One user message holding a `tool_result` block per result (none for no results). */
export function toAnthropicToolResultMessages(results: ToolResult[]): AnthropicToolResultMessage[] {
  if (results.length === 0) return [];
  return [{ role: 'user', content: results.map((r) => ({ type: 'tool_result', tool_use_id: r.call_id, content: anthropicToolResultContent(r), is_error: r.is_error })) }];
}

/**
 * Messages API: `tool_use` blocks from `content` (or `message.content`) in; one user message
 * holding a `tool_result` block per result out (image and PDF parts as image and document blocks).
 */
export const anthropicFormat: ProviderFormat = {
  readCalls(body) {
    const source = body.content ?? (body.message as Record<string, unknown> | undefined)?.content;
    return requireArray(source, 'content (or message.content)')
      .map((item, i) => ({ block: asRecord(item, `content[${i}]`), i }))
      .filter(({ block }) => block.type === 'tool_use')
      .map(({ block, i }) => ({ call_id: requireString(block.id, `content[${i}].id`), name: requireString(block.name, `content[${i}].name`), arguments: block.input ?? {} }));
  },
  writeResults: toAnthropicToolResultMessages,
};
