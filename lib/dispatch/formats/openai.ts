import { textWithNotes } from './content-render.ts';
import { asRecord, requireArray, requireString, type ProviderFormat } from './provider-format.ts';

/**
 * Chat Completions: `tool_calls` (or `message.tool_calls`) with JSON-string arguments in;
 * one `role: "tool"` message per result out (text only: a binary part becomes a note).
 */
export const openaiFormat: ProviderFormat = {
  readCalls(body) {
    const source = body.tool_calls ?? (body.message as Record<string, unknown> | undefined)?.tool_calls;
    return requireArray(source, 'tool_calls (or message.tool_calls)').map((item, i) => {
      const call = asRecord(item, `tool_calls[${i}]`);
      const fn = asRecord(call.function, `tool_calls[${i}].function`);
      return { call_id: requireString(call.id, `tool_calls[${i}].id`), name: requireString(fn.name, `tool_calls[${i}].function.name`), arguments: fn.arguments };
    });
  },
  writeResults(results) {
    return results.map((r) => ({ role: 'tool', tool_call_id: r.call_id, content: textWithNotes(r, 'chat-completions tool messages carry text only') }));
  },
};
