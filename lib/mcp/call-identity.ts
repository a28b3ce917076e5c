import { canonicalJson, sha256Hex } from '../idempotency/canonical-json.ts';

const THREAD = /^[\w.:@-]{1,200}$/;

/**
 * MCP has no thread or stable call id, so toolgate gives each call one: the thread from the
 * `X-Toolgate-Thread` header or the call's `_meta["toolgate/thread_id"]` (else one thread per
 * principal), and a call id derived from the tool and its arguments. A later identical call is
 * the same call: it gets the stored result, or the state of its pending approval.
 */
export async function mcpCallIdentity(input: { principal: string; threadHeader?: string; meta?: Record<string, unknown>; tool: string; args: unknown }): Promise<{ thread_id: string; call_id: string }> {
  const requested = typeof input.meta?.['toolgate/thread_id'] === 'string' ? input.meta['toolgate/thread_id'] : input.threadHeader;
  const thread_id = requested && THREAD.test(requested) ? requested : `mcp:${input.principal}`;
  const explicit = input.meta?.['toolgate/call_id'];
  if (typeof explicit === 'string' && explicit.length > 0 && explicit.length <= 200) return { thread_id, call_id: explicit };
  const digest = await sha256Hex(canonicalJson([input.tool, input.args ?? {}]));
  return { thread_id, call_id: `mcp_${digest.slice(0, 24)}` };
}
