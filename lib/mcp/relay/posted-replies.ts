import { ErrorCode, jsonRpcError, type JsonRpcErrorResponse, type JsonRpcResultResponse } from '../../mcp-wire/json-rpc.ts';
import { rejectionAnswer, type McpAnswer } from '../answer.ts';
import type { McpRequestContext } from '../methods.ts';
import { answerReplySlot, refusalMessage, type ClientReply } from './reply-slots.ts';

/**
 * JSON-RPC responses a legacy client POSTs: its answers to the requests toolgate relayed to it on
 * a call's event stream (ids `tgr_…`). Each goes to its reply slot, for the instance running the
 * call to pick up. A response to an id of another form is taken and dropped, as the official SDK's
 * server does (toolgate sent no such request).
 */

type PostedResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

const isRelayedId = (id: unknown): id is string => typeof id === 'string' && id.startsWith('tgr_');

/**
 * Takes every relayed answer among `responses`; the refusal of the first one refused (unknown,
 * expired or already answered: 404; malformed: 400, saying what is wrong), else undefined.
 */
export async function takePostedReplies(responses: PostedResponse[], context: McpRequestContext): Promise<McpAnswer | undefined> {
  const { principal, runtime } = context;
  const store = runtime.deps.store;
  let refused: McpAnswer | undefined;
  for (const response of responses) {
    const id = response.id;
    if (!isRelayedId(id)) continue;
    const reply = ('result' in response ? { result: response.result } : { error: response.error }) as ClientReply;
    let outcome;
    try {
      outcome = store ? await answerReplySlot(store, principal, id, reply, runtime.deps.now()) : { ok: false as const, reason: 'unknown' as const };
    } catch (error) {
      // The store is unreachable: nothing was taken, and the client may send its answer again.
      refused ??= rejectionAnswer(503, jsonRpcError(ErrorCode.InternalError, `toolgate could not take the answer to ${id} (its store failed: ${error instanceof Error ? error.message : String(error)}); send it again`), id);
      continue;
    }
    if (outcome.ok) continue;
    context.runtime.deps.log('mcp.reply.refused', { level: 'warn', tenant: principal.tenant, principal: principal.principal, reply_id: id, reason: outcome.reason });
    refused ??= rejectionAnswer(outcome.reason === 'malformed' ? 400 : 404, jsonRpcError(ErrorCode.InvalidParams, refusalMessage(id, outcome)), id);
  }
  return refused;
}
