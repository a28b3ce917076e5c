import type { ToolResult } from '../dispatch/call.ts';

/**
 * A toolgate result as an MCP `tools/call` result. Every outcome, including unknown tools,
 * invalid arguments and calls waiting for approval, is a result the model can read
 * (`isError: true`), never a protocol error; `_meta` carries toolgate's status for clients
 * that want it, after the tool's own `_meta` (an upstream's, its reserved keys already dropped),
 * so the keys toolgate reserves are always toolgate's.
 */
export function toCallToolResult(result: ToolResult) {
  return {
    // _meta first: the key order the SDK's result schema gives, so every path answers the same bytes.
    _meta: {
      ...result.meta,
      'toolgate/status': result.status,
      'toolgate/call_id': result.call_id,
      ...(result.replayed ? { 'toolgate/replayed': true } : {}),
      ...(result.error?.details?.approval_id ? { 'toolgate/approval_id': result.error.details.approval_id } : {}),
      // A tool whose execution lives in the client: the call to run there.
      ...(result.client_call ? { 'toolgate/client_call': result.client_call } : {}),
    },
    // Content parts as MCP content blocks (their shapes are MCP's), or the text as one block.
    content: result.content_parts ?? [{ type: 'text' as const, text: result.content }],
    ...(result.structured_content !== undefined ? { structuredContent: result.structured_content } : {}),
    isError: result.is_error,
  };
}
