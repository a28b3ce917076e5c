import type { JsonObject } from '../json.ts';
import { BrokenAnswerError } from './errors.ts';
import { mcpNameHeader } from './header-values.ts';
import { McpRpcError, nextRequestId, type RpcNotification, type RpcRequest, type RpcResponse } from './messages.ts';
import { CLIENT_INFO, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from './protocol.ts';
import { openSessionStream, postNotice, postRequest, type McpEndpoint } from './transport.ts';
import { refuseRequests } from './upstream-requests.ts';

/**
 * How requests to one upstream are framed. Legacy revisions: the session's id and negotiated
 * version as headers (none before initialize). Modern revisions: no session; every request
 * carries the envelope in `params._meta` and the headers mirroring its body.
 */
export type Framing =
  | { era: 'legacy'; protocolVersion?: string; sessionId?: string }
  | { era: 'modern'; protocolVersion: string; capabilities: JsonObject; logLevel?: string };

/** How long the notice that a request was cancelled may take to send. */
const CANCEL_NOTICE_MS = 5_000;

/** What the caller does with what the upstream sends while a request runs. */
export interface ExchangeHooks {
  onNotification?: (notification: RpcNotification) => void;
  /** Answers a request of the upstream's (sampling, elicitation, roots, ping); the answer is POSTed back. */
  onRequest?: (request: RpcRequest, signal: AbortSignal) => Promise<RpcResponse>;
  /** Headers for this request only (Mcp-Param-*). */
  headers?: Record<string, string>;
}

export interface Exchanged {
  result: JsonObject;
  /** The session id the answer named (initialize). */
  sessionId?: string;
}

/** One upstream, framed for its era: a light object, made per call around kept plain data. */
export class McpConnection {
  readonly endpoint: McpEndpoint;
  readonly framing: Framing;

  constructor(endpoint: McpEndpoint, framing: Framing) {
    this.endpoint = endpoint;
    this.framing = framing;
  }

  async request(method: string, params: JsonObject | undefined, signal: AbortSignal, hooks: ExchangeHooks = {}): Promise<JsonObject> {
    return (await this.exchange(method, params, signal, hooks)).result;
  }

  /**
   * Sends a request and reads its answer until the response with its id: notifications on the
   * way go to the hooks, and the upstream's own requests are answered (POSTed back) while reading
   * goes on, so requests it makes together are asked together (a relayed request may wait for a
   * person). Answering that fails ends the exchange with its error; the exchange's end stops what
   * is still being answered. A legacy answer's event stream that ends first is resumed from its
   * last event id (transport.ts). A JSON-RPC error is an McpRpcError; an answer that ends first
   * is a BrokenAnswerError.
   */
  async exchange(method: string, params: JsonObject | undefined, signal: AbortSignal, hooks: ExchangeHooks = {}): Promise<Exchanged> {
    const id = nextRequestId();
    const framed = this.#params(params);
    const body: JsonObject = { jsonrpc: '2.0', id, method, ...(framed ? { params: framed } : {}) };
    const over = new AbortController();
    const reading = AbortSignal.any([signal, over.signal]);
    let failed: { error: unknown } | undefined;
    let onRequest: ExchangeHooks['onRequest'];
    const answerRequest = async (request: RpcRequest, onRequest: NonNullable<ExchangeHooks['onRequest']>) => {
      try {
        await this.#post((await onRequest(request, reading)) as unknown as JsonObject, reading);
      } catch (error) {
        failed ??= { error };
        over.abort(error);
      }
    };
    try {
      // 2026-07-28 has no stream resumption (no event ids, no Last-Event-ID); the older revisions do.
      const answer = await postRequest(this.endpoint, body, { ...hooks.headers, ...this.#headers(method, framed) }, reading, { resumable: this.framing.era === 'legacy' });
      for await (const inbound of answer.messages) {
        if (inbound.kind === 'response') {
          if (inbound.id !== id) continue;
          if (inbound.error) throw new McpRpcError(inbound.error);
          return { result: inbound.result ?? {}, ...(answer.sessionId ? { sessionId: answer.sessionId } : {}) };
        }
        if (inbound.kind === 'notification') hooks.onNotification?.(inbound.message);
        else void answerRequest(inbound.message, (onRequest ??= hooks.onRequest ?? refuseRequests()));
      }
    } catch (error) {
      if (signal.aborted) await this.#cancelled(id, signal.reason);
      throw failed && !signal.aborted ? failed.error : error;
    } finally {
      over.abort();
    }
    if (failed) throw failed.error;
    throw new BrokenAnswerError('the connection closed before the answer came');
  }

  /**
   * While `signal` lives, listens on a legacy session's own stream: what the upstream sends
   * there belongs to no request, its requests go to `hooks.onRequest` (the answer is POSTed back)
   * and its notifications to `hooks.onNotification`. Resolves once the stream is open, or known
   * not to be (no session, none offered): listening is best effort.
   */
  async listenToSession(signal: AbortSignal, hooks: ExchangeHooks): Promise<void> {
    const framing = this.framing;
    if (framing.era !== 'legacy' || !framing.sessionId) return;
    const messages = await openSessionStream(this.endpoint, this.#headers(undefined, undefined), signal);
    if (!messages) return;
    const onRequest = hooks.onRequest ?? refuseRequests();
    const listen = async () => {
      for await (const inbound of messages) {
        if (inbound.kind === 'notification') hooks.onNotification?.(inbound.message);
        else if (inbound.kind === 'request') await this.#post((await onRequest(inbound.message, signal)) as unknown as JsonObject, signal);
      }
    };
    // Ends when `signal` aborts (the read breaks off) or the server closes the stream.
    listen().catch(() => {});
  }

  /**
   * Tells a legacy upstream that an aborted request's answer is no longer wanted, so it can stop
   * the work (modern upstreams take the closed stream as that). Sent after the abort, so it has
   * its own short deadline; a failure to send it changes nothing.
   */
  async #cancelled(id: number, reason: unknown): Promise<void> {
    if (this.framing.era !== 'legacy') return;
    const why = reason instanceof Error ? reason.message : 'the call was cancelled';
    await this.notify('notifications/cancelled', { requestId: id, reason: why }, AbortSignal.timeout(CANCEL_NOTICE_MS)).catch(() => {});
  }

  /** Sends a notification (`notifications/initialized`, `notifications/cancelled`). */
  async notify(method: string, params: JsonObject | undefined, signal: AbortSignal): Promise<void> {
    await this.#post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, signal);
  }

  #post(body: JsonObject, signal: AbortSignal): Promise<void> {
    const method = typeof body.method === 'string' ? body.method : undefined;
    return postNotice(this.endpoint, body, this.#headers(method, undefined), signal);
  }

  /** Params with the modern envelope merged into `_meta` (the caller's own keys, e.g. traceparent, kept). */
  #params(params: JsonObject | undefined): JsonObject | undefined {
    const framing = this.framing;
    if (framing.era === 'legacy') return params;
    const meta = params?._meta && typeof params._meta === 'object' && !Array.isArray(params._meta) ? params._meta : {};
    const envelope: JsonObject = {
      ...meta,
      [META_PROTOCOL_VERSION]: framing.protocolVersion,
      [META_CLIENT_INFO]: { ...CLIENT_INFO },
      [META_CLIENT_CAPABILITIES]: framing.capabilities,
      ...(framing.logLevel ? { [META_LOG_LEVEL]: framing.logLevel } : {}),
    };
    return { ...params, _meta: envelope };
  }

  #headers(method: string | undefined, params: JsonObject | undefined): Record<string, string> {
    const framing = this.framing;
    if (framing.era === 'legacy') {
      return { ...(framing.protocolVersion ? { 'mcp-protocol-version': framing.protocolVersion } : {}), ...(framing.sessionId ? { 'mcp-session-id': framing.sessionId } : {}) };
    }
    return { 'mcp-protocol-version': framing.protocolVersion, ...(method ? { 'mcp-method': method, ...mcpNameHeader(method, params) } : {}) };
  }
}
