import { canonicalJson, sha256Hex } from '../../idempotency/canonical-json.ts';
import type { ToolCall } from '../call.ts';
import { textWithNotes } from './content-render.ts';
import { asRecord, requireArray, requireString, type ProviderFormat } from './provider-format.ts';

/** Gemini often sends no call id: derive one from the thread, position, name and arguments, so a retry gets the same id. */
async function stableCallId(threadId: string, index: number, name: string, args: unknown): Promise<string> {
  const digest = await sha256Hex(canonicalJson([threadId, index, name, args ?? {}]));
  return `gemini_${digest.slice(0, 24)}`;
}

/**
 * Gemini: `functionCall` parts from `parts` (or `content.parts`) in; one user content holding
 * a `functionResponse` part per result out (`response.output`, or `response.error`).
 */
export const geminiFormat: ProviderFormat = {
  async readCalls(body, threadId) {
    const source = body.parts ?? (body.content as Record<string, unknown> | undefined)?.parts;
    const parts = requireArray(source, 'parts (or content.parts)').map((p, i) => ({ part: asRecord(p, `parts[${i}]`), i }));
    const calls: ToolCall[] = [];
    for (const { part, i } of parts) {
      if (part.functionCall === undefined) continue;
      const fc = asRecord(part.functionCall, `parts[${i}].functionCall`);
      const name = requireString(fc.name, `parts[${i}].functionCall.name`);
      const id = typeof fc.id === 'string' && fc.id !== '' ? fc.id : await stableCallId(threadId, i, name, fc.args);
      calls.push({ call_id: id, name, arguments: fc.args ?? {} });
    }
    return calls;
  },
  writeResults(results, calls) {
    if (results.length === 0) return [];
    const generated = new Set(calls.filter((c) => c.call_id.startsWith('gemini_')).map((c) => c.call_id));
    return [
      {
        role: 'user',
        parts: results.map((r) => ({
          functionResponse: {
            ...(generated.has(r.call_id) ? {} : { id: r.call_id }),
            name: r.name,
            response: r.is_error ? { error: { code: r.status, message: r.content } } : { output: textWithNotes(r, 'function responses carry text only here') },
          },
        })),
      },
    ];
  },
};
