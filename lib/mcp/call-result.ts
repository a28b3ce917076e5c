import type { ToolResult } from '../dispatch/call.ts';

/**
 * A toolgate result as an MCP `tools/call` result. Every outcome, including unknown tools,
 * invalid arguments and calls waiting for approval, is a result the model can read
 * (`isError: true`), never a protocol error; `_meta` carries toolgate's status for clients
 * that want it, after the tool's own `_meta` (an upstream's, its reserved keys already dropped),
 * so the keys toolgate reserves are always toolgate's.
 */
export function toCallToolResult(result: ToolResult): CallToolAnswer {
  // _meta first: the key order the SDK's result schema gives, so every path answers the same bytes.
  // Built by assignment rather than conditional spreads: this runs for every MCP call.
  const meta: Record<string, unknown> = { ...result.meta, 'toolgate/status': result.status, 'toolgate/call_id': result.call_id };
  if (result.replayed) meta['toolgate/replayed'] = true;
  const approvalId = result.error?.details?.approval_id;
  if (approvalId) meta['toolgate/approval_id'] = approvalId;
  // A tool whose execution lives in the client: the call to run there.
  if (result.client_call) meta['toolgate/client_call'] = result.client_call;
  // Content parts as MCP content blocks (their shapes are MCP's), or the text as one block.
  const answer: CallToolAnswer = { _meta: meta, content: result.content_parts ?? [{ type: 'text', text: result.content }], isError: result.is_error };
  if (result.structured_content === undefined) return answer;
  return { _meta: meta, content: answer.content, structuredContent: result.structured_content, isError: result.is_error };
}

/** An MCP `tools/call` result, keys in the SDK's order. */
export type CallToolAnswer = {
  _meta: Record<string, unknown>;
  content: NonNullable<ToolResult['content_parts']> | Array<{ type: 'text'; text: string }>;
  structuredContent?: ToolResult['structured_content'];
  isError: boolean;
};
