import { missingScope } from '../governance/scopes.ts';
import { LOG_LEVEL_META_KEY, LOG_LEVELS, metaOf } from '../mcp-wire/envelope.ts';
import type { JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import type { CallRelay } from '../registry/executor.ts';
import { McpToolExecutor } from '../registry/executors/mcp.ts';
import type { McpAnswer } from './answer.ts';
import { McpEventStream } from './event-stream.ts';
import type { McpRequestContext, McpRequestScope } from './methods.ts';
import { clientAsker } from './relay/client-asker.ts';
import { ResumableStream, type ResumeAs } from './stream-resumption.ts';

/**
 * What an upstream says while a `tools/call` runs (progress, log messages) reaches the MCP client
 * when its request can hear it: the answer is then an event stream carrying the notifications,
 * then the result. Only calls of upstream MCP tools stream; every other answer stays plain JSON.
 */

export type McpEra = 'legacy' | 'modern';

/** What a call's client asked to hear: progress under its token, log messages from a level on. */
interface Listening {
  progressToken?: string | number;
  logLevel?: string;
}

/**
 * A modern request names its log level in `_meta` (none: no log messages). A legacy client sets
 * it with `logging/setLevel` on an earlier request, which a stateless gateway cannot remember: it
 * hears every log message of the call (as a legacy server's session without a level is sent).
 */
function listening(params: unknown, era: McpEra): Listening {
  const meta = metaOf(params);
  const token = meta?.progressToken;
  const level = era === 'legacy' ? LOG_LEVELS[0] : meta?.[LOG_LEVEL_META_KEY];
  return {
    ...(typeof token === 'string' || Number.isSafeInteger(token) ? { progressToken: token as string | number } : {}),
    ...(typeof level === 'string' && LOG_LEVELS.includes(level) ? { logLevel: level } : {}),
  };
}

/**
 * Whether a request's answer streams: a `tools/call` of an upstream MCP tool the caller holds the
 * scopes for, asking to hear something. (A call refused for a scope keeps its JSON answer, which
 * the route may turn into 403 insufficient_scope.)
 */
export function streamsNotifications(request: JsonRpcRequest, context: McpRequestContext, era: McpEra): boolean {
  if (request.method !== 'tools/call' || typeof request.params?.name !== 'string') return false;
  const executor = context.runtime.registry.get(request.params.name);
  if (!(executor instanceof McpToolExecutor)) return false;
  if (missingScope(executor.definition, new Set(context.principal.scopes)) !== undefined) return false;
  const heard = listening(request.params, era);
  return heard.progressToken !== undefined || heard.logLevel !== undefined;
}

function relayOn(events: McpEventStream, era: McpEra, context: McpRequestContext): (params: unknown) => CallRelay {
  const asker = era === 'legacy' ? streamAsker(events, context) : undefined;
  return (params) => {
    const { progressToken, logLevel } = listening(params, era);
    return {
      notify: (notification) => events.send({ jsonrpc: '2.0', ...notification }),
      ...(progressToken !== undefined ? { progress_token: progressToken } : {}),
      ...(logLevel !== undefined ? { log_level: logLevel } : {}),
      ...(asker ? { ask_client: asker } : {}),
    };
  };
}

/**
 * A legacy call's event stream carries the upstream's requests of the client too (as a 2025-11-25
 * server sends its own on a request's stream): the client POSTs its answer, which any instance
 * hands over through the store (relay/reply-slots.ts). The client told its capabilities to
 * `initialize`: a request carrying the session id toolgate answered there (session.ts) is asked
 * only what they take, the rest refused at once; without one they are unknown, so it is asked, and
 * a client that cannot take a request answers it with an error, which goes to the upstream.
 * Without a store there is no rendezvous, and the upstream's requests are refused at once.
 */
function streamAsker(events: McpEventStream, context: McpRequestContext): CallRelay['ask_client'] {
  const { store, now } = context.runtime.deps;
  if (!store || !context.replyChannel) return undefined;
  const { tenant, principal } = context.principal;
  const capabilities = context.session?.capabilities;
  return clientAsker({ store, tenant, principal, now, ...(capabilities ? { capabilities } : {}), deliver: (id, request) => events.send({ jsonrpc: '2.0', id, method: request.method, params: request.params }) });
}

/**
 * An answer as an event stream: 200 at once, the notifications as the calls make them, then the
 * JSON-RPC answers (`answer` never throws: failures are answers). The calls run on after the
 * response starts, and after its client goes away: a call's outcome is stored whether or not
 * anyone still listens (Workers keep the request alive for it through `defer`), so a resumable
 * stream (`resumeAs`: one request) can be resumed with GET + Last-Event-ID.
 */
export function streamedAnswer(era: McpEra, scope: McpRequestScope, answer: (scope: McpRequestScope) => Promise<unknown[]>, resumeAs?: ResumeAs): McpAnswer {
  const events = new McpEventStream();
  const resumable = resumeAs && new ResumableStream(events, resumeAs, scope.context.principal.tenant);
  const work = answer({ ...scope, relay: relayOn(events, era, scope.context), ...(resumable ? { resumable } : {}) })
    .then((messages) => (resumable ? resumable.answer(messages[0]) : messages.forEach((message) => events.send(message))))
    // Answering never throws (a fault in toolgate is an error answer); a stream without an answer is the last resort.
    .catch(() => {})
    .finally(() => events.close());
  scope.context.defer?.(work);
  return { status: 200, body: null, stream: events.readable };
}
