import { echoableId, ErrorCode, errorMessage, isPlainObject, jsonRpcError, readJsonRpcMessage, resultMessage, type JsonObject, type JsonRpcMessage, type JsonRpcErrorResponse, type JsonRpcRequest, type JsonRpcResultResponse } from '../mcp-wire/json-rpc.ts';
import { metaOf } from '../mcp-wire/envelope.ts';
import { isLegacyVersion, isModernVersion, LEGACY_VERSIONS, negotiateLegacyVersion, SUPPORTED_VERSIONS } from '../mcp-wire/versions.ts';
import { ACCEPTED, jsonAnswer, rejectionAnswer, type McpAnswer } from './answer.ts';
import { streamedAnswer, streamsNotifications } from './call-relay.ts';
import { initializeResult } from './capabilities.ts';
import { featureMethod } from './feature-methods.ts';
import { initializeIssues, issuesMessage, resourceUriIssues, setLevelIssues, toolsCallIssues, toolsListIssues, type ParamsIssue } from './legacy-params.ts';
import { McpMethodError } from './method-error.ts';
import { callMcpTool, listMcpTools, mcpRequestScope, type McpRequestContext, type McpRequestScope, type McpToolCall } from './methods.ts';
import { tasksOffered } from './parking.ts';
import { takePostedReplies } from './relay/posted-replies.ts';
import { mintSessionId, readSessionId, sessionNotFound } from './session.ts';
import { LEGACY_TASK_METHODS } from './tasks/legacy-task-methods.ts';
import { streamOwner } from './stream-event-id.ts';
import { takesResumableStreams, type ResumeAs } from './stream-resumption.ts';

/**
 * The legacy eras (2025-11-25 and earlier) as toolgate serves them: statelessly, a POST at a
 * time. `initialize` answers an `Mcp-Session-Id` that carries what the client declared, and a
 * later request with it gets that on its context (session.ts); a request without one is served
 * as well. A POST holds one message or a batch; notifications and posted responses are taken
 * (202), requests are answered in order. Every answer, error or not, is the one the official SDK
 * v1 gives (test/mcp/legacy.test.ts compares the two byte for byte), so clients written against
 * it see no change; the exceptions there are deliberate (the session id among them).
 */

/** The most messages one batch may hold (as the SDK's transport allows). */
export const MAX_BATCH_MESSAGES = 100;

/** The transport headers a legacy POST is read with (null: absent). */
export interface LegacyHeaders {
  protocolVersion: string | null;
  sessionId: string | null;
}

/**
 * `read`: the lone message `body` holds, already read by the classifier (lib/mcp-wire/classify.ts),
 * so it is not read again; without it, each element of `body` is read here.
 */
export async function answerLegacy(body: unknown, { protocolVersion, sessionId }: LegacyHeaders, context: McpRequestContext, read?: JsonRpcMessage): Promise<McpAnswer> {
  const elements = Array.isArray(body) ? body : [body];
  if (elements.length > MAX_BATCH_MESSAGES) return rejectionAnswer(400, jsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`));
  const requests: JsonRpcRequest[] = [];
  const responses: Array<JsonRpcResultResponse | JsonRpcErrorResponse> = [];
  let initializing = false;
  for (const element of elements) {
    const message = read && element === body ? read : readJsonRpcMessage(element);
    if (!message) return rejectionAnswer(400, jsonRpcError(ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message'));
    initializing ||= isInitialize(message);
    if (message.kind === 'request') requests.push(message.message);
    else if (message.kind === 'response') responses.push(message.message);
  }
  if (initializing && elements.length > 1) return rejectionAnswer(400, jsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed'));
  // The handshake opens a new session whatever it was sent with; every other message is of the
  // session it names, whose agreed revision outranks the request's header (spans name it too).
  if (!initializing && sessionId !== null) {
    const session = readSessionId(sessionId);
    if (!session) return sessionNotFound(echoableId(body));
    context = { ...context, session, protocolVersion: session.protocolVersion };
  }
  // The handshake names its revision in the body; everything else must name a legacy one it knows.
  if (!initializing && protocolVersion !== null && !isLegacyVersion(protocolVersion)) return rejectionAnswer(400, unsupportedVersion(protocolVersion));
  // A client's answers to requests relayed on a call's event stream (relay/posted-replies.ts).
  const refused = responses.length > 0 ? await takePostedReplies(responses, context) : undefined;
  if (requests.length === 0) return refused ?? ACCEPTED;
  // One scope for the POST: a batch's calls spend its budgets together, in the batch's order (one
  // after another, as a sequential /v1/dispatch), so where the budget runs out is not up to timing.
  const scope = mcpRequestScope(context);
  // An upstream tool's notifications go out on the POST's event stream (every legacy client takes one).
  if (requests.some((request) => streamsNotifications(request, context, 'legacy'))) return streamedAnswer('legacy', scope, (within) => answerAll(requests, within), await resumeAs(requests, context.session?.protocolVersion ?? protocolVersion, context));
  // As the SDK's transport: a lone answer goes bare, even for a batch of one.
  if (requests.length === 1) return initializing ? opened(requests[0], scope) : jsonAnswer(200, await answerRequest(requests[0], scope));
  return jsonAnswer(200, await answerAll(requests, scope));
}

/**
 * A lone request's stream is resumable for a client at 2025-11-25 (SEP-1699: its session's revision
 * decides, else its header). A batch's is not: its events would answer several requests, and
 * clients of that revision send no batches anyway.
 */
async function resumeAs(requests: JsonRpcRequest[], version: string | null, context: McpRequestContext): Promise<ResumeAs | undefined> {
  // A call asked as a task is answered with its task: a resumed stream, which sends the call's result, would not be that answer.
  if (requests.length !== 1 || !takesResumableStreams(version) || asksForTask(requests[0].params)) return undefined;
  return { owner: await streamOwner(context.principal.tenant, context.principal.principal), requestId: requests[0].id };
}

/** The answer to `initialize`, naming the session it opened when it succeeded (session.ts). */
async function opened(request: JsonRpcRequest, scope: McpRequestScope): Promise<McpAnswer> {
  const message = await answerRequest(request, scope);
  if (!('result' in message)) return jsonAnswer(200, message);
  const agreed = negotiateLegacyVersion(request.params!.protocolVersion as string);
  return { ...jsonAnswer(200, message), sessionId: mintSessionId(agreed, request.params!.capabilities) };
}

async function answerAll(requests: JsonRpcRequest[], scope: McpRequestScope) {
  const answers = [];
  for (const request of requests) answers.push(await answerRequest(request, scope));
  return answers;
}

/**
 * A header naming a revision this message cannot use: -32022 with the revisions that could
 * serve it (a modern one needs the per-request envelope, which batches and posted responses
 * cannot carry), so a dual-era client can correct itself.
 */
function unsupportedVersion(requested: string) {
  const supported = isModernVersion(requested) ? LEGACY_VERSIONS : SUPPORTED_VERSIONS;
  const why = isModernVersion(requested) ? ' for a message without the per-request _meta envelope (a batch, a posted response, or a request that does not name its revision in params._meta)' : '';
  return jsonRpcError(ErrorCode.UnsupportedProtocolVersion, `Bad Request: Unsupported protocol version: ${requested}${why} (supported versions: ${supported.join(', ')})`, { supported: [...supported], requested });
}

export interface LegacyMethod {
  issues(params: JsonObject | undefined): ParamsIssue[];
  answer(request: JsonRpcRequest, scope: McpRequestScope): unknown;
}

const LEGACY_METHODS: Readonly<Record<string, LegacyMethod>> = {
  initialize: { issues: initializeIssues, answer: (request, scope) => initializeResult(scope.context.runtime, request.params!.protocolVersion as string) },
  ping: { issues: () => [], answer: () => ({}) },
  'tools/list': { issues: toolsListIssues, answer: (request, scope) => listMcpTools(scope, request.id, metaOf(request.params), request.params?.cursor) },
  'tools/call': { issues: toolsCallIssues, answer: (request, scope) => callMcpTool(scope, request.id, request.params as unknown as McpToolCall, asksForTask(request.params) ? 'legacy' : undefined) },
  // Taken, and nothing kept: a session's id carries only what initialize declared, and the gateway
  // keeps no state to hold a level or a subscription in (so no resources/updated notification ever
  // follows; the capability does not claim one).
  'logging/setLevel': { issues: setLevelIssues, answer: () => ({}) },
  'resources/subscribe': { issues: resourceUriIssues, answer: () => ({}) },
  'resources/unsubscribe': { issues: resourceUriIssues, answer: () => ({}) },
  ...LEGACY_TASK_METHODS,
};

async function answerRequest(request: JsonRpcRequest, scope: McpRequestScope) {
  const { id, method, params } = request;
  const handler = Object.hasOwn(LEGACY_METHODS, method) ? LEGACY_METHODS[method] : legacyFeature(method, scope);
  if (!handler) return errorMessage(id, jsonRpcError(ErrorCode.MethodNotFound, 'Method not found'));
  // Tasks are offered where a store keeps them (then only a tools/call becomes one, and a task
  // asked on another method is ignored); elsewhere the SDK's refusal.
  if (asksForTask(params) && !tasksOffered(scope.context.runtime)) return errorMessage(id, jsonRpcError(ErrorCode.InternalError, `Server does not support task creation (required for ${method})`));
  const issues = handler.issues(params);
  if (issues.length > 0) return errorMessage(id, jsonRpcError(ErrorCode.InternalError, issuesMessage(issues)));
  try {
    return resultMessage(id, await handler.answer(request, scope));
  } catch (error) {
    if (error instanceof McpMethodError) return errorMessage(id, error.error);
    // Dispatch answers tool failures as results; this is a fault in toolgate itself.
    return errorMessage(id, jsonRpcError(ErrorCode.InternalError, error instanceof Error ? error.message : 'Internal error'));
  }
}

/** A method of what else the tenant offers (resources, prompts, logging: feature-methods.ts), served on this era. */
function legacyFeature(method: string, scope: McpRequestScope): LegacyMethod | undefined {
  const found = featureMethod(method, scope.context.runtime);
  return found && { issues: found.issues, answer: (request, within) => found.answer(request, within, 'legacy') };
}

/** A valid `initialize` (request or not: the SDK's transport counts either) in a POST. */
function isInitialize(read: JsonRpcMessage): boolean {
  return read.kind !== 'response' && read.message.method === 'initialize' && initializeIssues(read.message.params).length === 0;
}

/** Params asking for a task: a `task` object whose `ttl`, if any, is a number. */
function asksForTask(params: JsonObject | undefined): boolean {
  const task = params?.task;
  return isPlainObject(task) && (task.ttl === undefined || typeof task.ttl === 'number');
}
