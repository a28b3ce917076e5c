import { isPlainObject } from '../../mcp-wire/json-rpc.ts';
import type { JsonObject } from '../../registry/json.ts';
import { McpRpcError } from '../../registry/mcp-client/messages.ts';
import { cannotRelayMessage, METHOD_NOT_FOUND } from '../../registry/mcp-client/upstream-requests.ts';
import type { RecordStore } from '../../stores/store.ts';
import { MAX_RELAYED_CHARS } from './reply-shapes.ts';
import { awaitReply, newReplyId, openReplySlot, REPLY_TTL_MS, type ReplySlot } from './reply-slots.ts';
import { WaitEndedError } from './store-wait.ts';

/**
 * Relaying one request an upstream makes of its client (sampling/createMessage, elicitation/create,
 * roots/list) to the client that made the call: a reply slot is stored (reply-slots.ts), the
 * request goes to the client as `deliver` says (on the call's event stream, or in an
 * `input_required` answer), and the client's answer comes back through the slot to the upstream.
 * A request the client did not declare the capability for is refused at once, as is everything
 * when it declared nothing toolgate can relay.
 */

export interface UpstreamRequest {
  method: string;
  params: JsonObject;
}

export interface AskingClient {
  store: RecordStore;
  tenant: string;
  principal: string;
  now: () => number;
  /** The client's capabilities for this request, when known: its `_meta` (2026-07-28) or its legacy session's (lib/mcp/session.ts); undefined: unknown (a legacy client without a session id). */
  capabilities?: Record<string, unknown>;
  /** Hands the request to the client under the slot's id. */
  deliver(id: string, request: UpstreamRequest): Promise<void> | void;
}

/** The capability a client declares to take `request` (elicitation in URL mode needs `elicitation.url`). */
function neededCapability(request: UpstreamRequest): { name: string; sub?: string } | undefined {
  switch (request.method) {
    case 'sampling/createMessage':
      return { name: 'sampling' };
    case 'roots/list':
      return { name: 'roots' };
    case 'elicitation/create':
      return { name: 'elicitation', sub: request.params.mode === 'url' ? 'url' : 'form' };
    default:
      return undefined;
  }
}

/** Whether `capabilities` take `request` (an empty elicitation object means form mode, as the spec says). */
export function declares(capabilities: Record<string, unknown>, request: UpstreamRequest): boolean {
  const needed = neededCapability(request);
  const declared = needed && capabilities[needed.name];
  if (!needed || !isPlainObject(declared)) return false;
  if (!needed.sub) return true;
  return isPlainObject(declared[needed.sub]) || (needed.sub === 'form' && Object.keys(declared).length === 0);
}

/** Whether `capabilities` declare anything an upstream may ask of a client. */
export const declaresAnyAsking = (capabilities: Record<string, unknown>): boolean => ['sampling', 'elicitation', 'roots'].some((name) => isPlainObject(capabilities[name]));

/**
 * The request as the client is asked it. A sampling request's `includeContext` goes: to the
 * client, toolgate is one server, so an upstream's "thisServer" (or "allServers") would have the
 * client attach the context of every upstream of the tenant, other servers' tool results among
 * them, for this one upstream to read. Without it the client attaches none (the spec's default).
 */
function relayedRequest(request: UpstreamRequest): UpstreamRequest {
  if (request.method !== 'sampling/createMessage' || !Object.hasOwn(request.params, 'includeContext')) return request;
  const { includeContext: _dropped, ...params } = request.params;
  return { method: request.method, params };
}

/**
 * Why a URL-mode elicitation is not relayed: its link is one the user is asked to open, and the
 * client shows it as toolgate's (toolgate's own confirm links look just like it), so only a web
 * page is; a javascript:, data: or file: link is an upstream's attack on the client.
 */
function linkProblem(request: UpstreamRequest): string | undefined {
  if (request.method !== 'elicitation/create' || request.params.mode !== 'url') return undefined;
  const url = request.params.url;
  if (typeof url === 'string' && /^https?:\/\//i.test(url)) return undefined;
  return `toolgate relays a URL-mode elicitation/create only for an http(s) URL, not ${JSON.stringify(String(url).slice(0, 60))}`;
}

/** The `ask_client` of a call whose client can be asked. */
export function clientAsker(client: AskingClient): (request: UpstreamRequest, signal: AbortSignal) => Promise<JsonObject> {
  return async (asked, signal) => {
    const request = relayedRequest(asked);
    if (client.capabilities && !declares(client.capabilities, request)) {
      throw new McpRpcError({ code: METHOD_NOT_FOUND, message: `${cannotRelayMessage(request.method)}: the client did not declare the capability (in the request's _meta, or in the initialize of its session)` });
    }
    const problem = linkProblem(request);
    if (problem) throw new McpRpcError({ code: -32602, message: problem });
    if (JSON.stringify(request.params).length > MAX_RELAYED_CHARS) {
      throw new McpRpcError({ code: -32603, message: `toolgate relays no ${request.method} request larger than ${MAX_RELAYED_CHARS / 1024} KiB` });
    }
    const slot: ReplySlot = { id: newReplyId(), tenant: client.tenant, principal: client.principal, method: request.method, expires_at: client.now() + REPLY_TTL_MS };
    await openReplySlot(client.store, slot);
    await client.deliver(slot.id, request);
    let reply;
    try {
      reply = await awaitReply(client.store, slot, signal, client.now);
    } catch (error) {
      if (error instanceof WaitEndedError) throw new McpRpcError({ code: -32603, message: `the calling client did not answer ${request.method} within ${REPLY_TTL_MS / 1000} s` });
      throw error;
    }
    if ('error' in reply) throw new McpRpcError(reply.error as { code: number; message: string });
    return reply.result;
  };
}
