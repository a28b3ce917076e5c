import { LOG_LEVELS } from '../../mcp-wire/envelope.ts';
import type { ToolExecutionContext } from '../executor.ts';
import type { ExchangeHooks } from '../mcp-client/connection.ts';
import { BrokenAnswerError } from '../mcp-client/errors.ts';
import type { RpcNotification, RpcRequest, RpcResponse } from '../mcp-client/messages.ts';
import { answerUpstreamRequest, isClientRequest } from '../mcp-client/upstream-requests.ts';

/** Requests of the client one call answers; more fail the call. */
const MAX_UPSTREAM_REQUESTS = 32;

/** Who the log lines are about. */
interface CallLabel {
  tool: string;
  upstream: string;
}

/** Whether a log message is at least as severe as the level the caller asked for (an unknown level is kept: the caller asked for logs). */
function severeEnough(params: Record<string, unknown>, wanted: string): boolean {
  const level = LOG_LEVELS.indexOf(String(params.level));
  return level < 0 || level >= LOG_LEVELS.indexOf(wanted);
}

/**
 * What one upstream call says besides its answer, and where it goes: progress about this call
 * (under the token toolgate sent) and log messages at the caller's log level or above reach the
 * caller's `notify` (no level: no log messages, as 2026-07-28 says); requests of the
 * client reach `ask_client`, or are refused at once. Whatever nobody listens for is dropped and
 * counted in one `mcp.notifications.dropped` log line when the call ends.
 */
export class McpCallRelay {
  /** The progress token sent upstream: toolgate's own, so an upstream never learns (or spoofs) the caller's. */
  readonly progressToken: string | undefined;
  readonly #context: ToolExecutionContext;
  readonly #label: CallLabel;
  readonly #dropped = new Map<string, number>();
  #requests = 0;

  constructor(context: ToolExecutionContext, label: CallLabel) {
    this.#context = context;
    this.#label = label;
    this.progressToken = context.notify && context.progress_token !== undefined ? `toolgate-${crypto.randomUUID()}` : undefined;
  }

  /** `_meta` for the upstream request: the progress token, when the caller wants progress. */
  get meta(): { progressToken?: string } {
    return this.progressToken ? { progressToken: this.progressToken } : {};
  }

  get hooks(): ExchangeHooks {
    return { onNotification: (notification) => this.#notification(notification), onRequest: (request, signal) => this.#request(request, signal) };
  }

  #notification({ method, params = {} }: RpcNotification): void {
    const { notify, progress_token, log_level } = this.#context;
    if (notify && method === 'notifications/progress' && this.progressToken !== undefined && params.progressToken === this.progressToken && progress_token !== undefined) {
      notify({ method, params: { ...params, progressToken: progress_token } });
      return;
    }
    if (notify && method === 'notifications/message' && log_level !== undefined && severeEnough(params, log_level)) {
      notify({ method, params });
      return;
    }
    this.#drop(method);
  }

  /**
   * For what the upstream sends on its session's own stream while the call runs: it belongs to
   * no call (another client's call may share the session), so requests are refused at once and
   * never relayed, and notifications are dropped and counted.
   */
  get sessionHooks(): ExchangeHooks {
    return {
      onNotification: ({ method }) => this.#drop(method),
      onRequest: (request, signal) => this.#request(request, signal, false),
    };
  }

  #drop(method: string): void {
    this.#dropped.set(method, (this.#dropped.get(method) ?? 0) + 1);
  }

  async #request(request: RpcRequest, signal: AbortSignal, relayable = true): Promise<RpcResponse> {
    // Each is answered with a request of toolgate's own: an upstream may not make it send without end.
    if (++this.#requests > MAX_UPSTREAM_REQUESTS) throw new BrokenAnswerError(`it sent more than ${MAX_UPSTREAM_REQUESTS} requests of the client during one call`);
    const ask = relayable ? this.#context.ask_client : undefined;
    if (!ask && isClientRequest(request.method)) {
      this.#context.log?.('mcp.upstream_request.refused', { call_id: this.#context.call_id, tenant: this.#context.tenant, ...this.#label, method: request.method, ...(relayable ? {} : { outside_call: true }) });
    }
    return answerUpstreamRequest(request, ask, signal);
  }

  /** Logs what was dropped, once, when the call is over. */
  finish(): void {
    if (this.#dropped.size === 0) return;
    const count = [...this.#dropped.values()].reduce((sum, n) => sum + n, 0);
    this.#context.log?.('mcp.notifications.dropped', { call_id: this.#context.call_id, tenant: this.#context.tenant, ...this.#label, count, by_method: Object.fromEntries(this.#dropped) });
  }
}
