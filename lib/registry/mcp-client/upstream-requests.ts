import type { JsonObject } from '../json.ts';
import { BrokenAnswerError } from './errors.ts';
import { McpRpcError, type RpcRequest, type RpcResponse } from './messages.ts';

/** Relays an upstream's request to the client that made the call; resolves with that client's result. */
export type AskClient = (request: { method: string; params: JsonObject }, signal: AbortSignal) => Promise<JsonObject>;

/** Requests an upstream makes of its client during a call, and what each would need of the caller's client. */
const CLIENT_REQUESTS: Record<string, string> = {
  'sampling/createMessage': 'ask the model',
  'elicitation/create': 'ask the user',
  'roots/list': "read the client's roots",
};

export const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

/** Why toolgate answered an upstream's request with an error instead of relaying it. */
export function cannotRelayMessage(method: string): string {
  const purpose = CLIENT_REQUESTS[method];
  return purpose
    ? `toolgate cannot relay ${method} to the client that made this call, so the tool cannot ${purpose} here`
    : `toolgate does not answer ${method} requests from upstream servers`;
}

/**
 * The answer to a request an upstream sent while a call ran: `ping` is answered; sampling,
 * elicitation and roots go to `ask` when the caller's client can take them, and are otherwise
 * refused at once (JSON-RPC -32601), so the tool fails fast instead of waiting for its timeout.
 */
export async function answerUpstreamRequest(request: RpcRequest, ask: AskClient | undefined, signal: AbortSignal): Promise<RpcResponse> {
  const { id, method } = request;
  if (method === 'ping') return { jsonrpc: '2.0', id, result: {} };
  if (!ask || !(method in CLIENT_REQUESTS)) return { jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: cannotRelayMessage(method) } };
  try {
    return { jsonrpc: '2.0', id, result: await ask({ method, params: request.params ?? {} }, signal) };
  } catch (error) {
    if (error instanceof McpRpcError) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
    return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `the calling client could not answer ${method}: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

export const isClientRequest = (method: string): boolean => method in CLIENT_REQUESTS;

/** Requests of the client one exchange that no call relays may make; more end the exchange. */
export const MAX_REFUSED_REQUESTS = 32;

/**
 * For exchanges no call relays (resources, prompts, completion, lists, a session's own stream):
 * the upstream's requests are answered at once (ping) or refused, so a resources/read whose
 * upstream asks for sampling fails fast instead of waiting for its timeout. An upstream that keeps
 * asking is cut off: each refusal is a request of toolgate's own.
 */
export function refuseRequests(): (request: RpcRequest, signal: AbortSignal) => Promise<RpcResponse> {
  let count = 0;
  return async (request, signal) => {
    if (++count > MAX_REFUSED_REQUESTS) throw new BrokenAnswerError(`it sent more than ${MAX_REFUSED_REQUESTS} requests of the client during one request`);
    return answerUpstreamRequest(request, undefined, signal);
  };
}
