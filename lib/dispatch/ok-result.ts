import { contentText } from '../registry/content-text.ts';
import type { OutputLimits } from '../registry/definition.ts';
import { truncateOutput, truncateTextParts } from '../tools/truncate.ts';
import { elapsedMs, type ToolCall, type ToolResult } from './call.ts';
import type { CheckedContent } from './content-check.ts';
import type { ExecutedOutput } from './stages/execute.ts';

/** Content one string cannot carry: a part that is not text, or structured content. */
function isRich(content: CheckedContent | undefined): content is CheckedContent {
  return content !== undefined && (content.structured !== undefined || content.parts.some((part) => part.type !== 'text'));
}

/**
 * The `ok` result of an executed call, truncated for the model (the truncate stage): plain text
 * as one string; content parts with their text parts truncated under one budget and binary
 * parts left whole, plus their text rendering as `content` for clients that read only that.
 */
export function okResult(call: Pick<ToolCall, 'call_id' | 'name'>, executed: ExecutedOutput, limits: OutputLimits | undefined, startedAt: number): ToolResult {
  const { text, content, client_call } = executed;
  const dropped = (content?.dropped ?? 0) > 0;
  const base = { call_id: call.call_id, name: call.name, status: 'ok' as const, is_error: false, ...(client_call ? { client_call } : {}) };
  if (isRich(content)) {
    const cut = truncateTextParts(content.parts, limits);
    return {
      ...base,
      content: contentText(cut.parts, content.structured),
      content_parts: cut.parts,
      ...(content.structured !== undefined ? { structured_content: content.structured } : {}),
      truncated: cut.truncated || dropped,
      duration_ms: elapsedMs(startedAt),
    };
  }
  const cut = truncateOutput(text, limits);
  return { ...base, content: cut.content, truncated: cut.truncated || dropped, duration_ms: elapsedMs(startedAt) };
}
