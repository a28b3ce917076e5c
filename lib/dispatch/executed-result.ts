import { hasMetadata } from '../registry/content-parts.ts';
import { contentText, errorText } from '../registry/content-text.ts';
import type { OutputLimits } from '../registry/definition.ts';
import { truncateOutput, truncateTextParts } from '../tools/truncate.ts';
import { elapsedMs, type ToolCall, type ToolResult } from './call.ts';
import type { CheckedContent } from './content-check.ts';
import type { ExecutedOutput } from './stages/execute.ts';

/** Content one string cannot carry: a part that is not text or has annotations or `_meta`, or structured content. */
function isRich(content: CheckedContent | undefined): content is CheckedContent {
  return content !== undefined && (content.structured !== undefined || content.parts.some((part) => part.type !== 'text' || hasMetadata(part)));
}

/**
 * The result of a call that ran, truncated for the model (the truncate stage): `ok`, or `error`
 * when the tool reported one with its own content (MCP's `isError`: its parts and structured
 * content are kept, and their text is the error's message). Plain text is one string; content
 * parts have their text parts truncated under one budget and binary parts left whole, plus
 * their text rendering as `content` for clients that read only that.
 */
export function executedResult(call: Pick<ToolCall, 'call_id' | 'name'>, executed: ExecutedOutput, limits: OutputLimits | undefined, startedAt: number): ToolResult {
  const { text, content, client_call, is_error, meta } = executed;
  const dropped = (content?.dropped ?? 0) > 0;
  const outcome = is_error
    ? { status: 'error' as const, is_error: true, error: { code: 'error' as const, message: content ? errorText(content.parts, content.structured) : text } }
    : { status: 'ok' as const, is_error: false };
  const base = { call_id: call.call_id, name: call.name, ...outcome, ...(client_call ? { client_call } : {}), ...(meta ? { meta } : {}) };
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
  // An error's own words are its message, whole (errorText caps them); only an ok output is cut to the tool's limits.
  if (is_error) return { ...base, content: base.error!.message, truncated: dropped, duration_ms: elapsedMs(startedAt) };
  const cut = truncateOutput(text, limits);
  return { ...base, content: cut.content, truncated: cut.truncated || dropped, duration_ms: elapsedMs(startedAt) };
}
