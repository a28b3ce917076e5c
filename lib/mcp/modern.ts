import type { ModernRoute } from '../mcp-wire/classify.ts';
import { ErrorCode, errorMessage, httpStatusOf, isPlainObject, jsonRpcError, resultMessage, type JsonObject, type JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import { paramHeaderRejection } from '../mcp-wire/param-headers.ts';
import { metaOf } from '../mcp-wire/envelope.ts';
import { stampedResult } from '../mcp-wire/results.ts';
import { standardHeaderRejection, type StandardHeaders } from '../mcp-wire/standard-headers.ts';
import { LEGACY_VERSIONS, MODERN_VERSIONS } from '../mcp-wire/versions.ts';
import { ACCEPTED, jsonAnswer, rejectionAnswer, wireRejectionAnswer, type McpAnswer } from './answer.ts';
import { streamedAnswer, streamsNotifications } from './call-relay.ts';
import { discoverResult, mcpServerInfo } from './capabilities.ts';
import { featureMethod, issuesText } from './feature-methods.ts';
import { MAX_IDEMPOTENCY_KEY } from '../idempotency/keys.ts';
import { McpMethodError } from './method-error.ts';
import { answerModernToolCall } from './confirm/confirm-call.ts';
import { listMcpTools, mcpRequestScope, type McpRequestContext, type McpRequestScope } from './methods.ts';
import { MODERN_TASK_METHODS } from './tasks/modern-task-methods.ts';
import { missingClientCapability } from './required-capabilities.ts';
import { toolParamHeaders } from './tool-param-headers.ts';

/**
 * The 2026-07-28 revision: no handshake and no session; each request names its revision and the
 * client's capabilities in its `_meta` envelope (the classifier checked it), its method and name
 * in standard headers, and gets a result stamped with `resultType`, cache hints and the server's
 * identity. Tools go through the same pipeline as every other path.
 */

export interface ModernMethod {
  /** The params problem, answered in-band as -32602 (undefined: none). */
  invalid?(params: JsonObject | undefined): string | undefined;
  answer(request: JsonRpcRequest, scope: McpRequestScope): JsonObject | Promise<JsonObject>;
}

const MODERN_METHODS: Readonly<Record<string, ModernMethod>> = {
  'server/discover': { answer: (_request, scope) => discoverResult(scope.context.runtime) },
  'tools/list': {
    invalid: (params) => (params?.cursor !== undefined && typeof params.cursor !== 'string' ? 'params.cursor must be a string (a cursor from an earlier tools/list)' : undefined),
    answer: (request, scope) => listMcpTools(scope, request.id, metaOf(request.params), request.params?.cursor),
  },
  'tools/call': { invalid: toolsCallProblem, answer: answerModernToolCall },
  ...MODERN_TASK_METHODS,
};

export async function answerModern(route: ModernRoute, headers: StandardHeaders, httpHeaders: Headers, context: McpRequestContext): Promise<McpAnswer> {
  const version = route.version;
  const id = route.messageKind === 'request' ? route.message.id : null;
  if (version === undefined || !MODERN_VERSIONS.includes(version)) {
    const requested = version ?? 'unknown';
    // The list is server/discover's supportedVersions (the revisions a request's envelope may name);
    // the legacy ones are negotiated by initialize, and the message says so.
    const message = `Unsupported protocol version: ${requested} (supported versions: ${MODERN_VERSIONS.join(', ')}; the legacy revisions ${LEGACY_VERSIONS.join(', ')} are served through initialize, without the _meta envelope)`;
    return rejectionAnswer(400, jsonRpcError(ErrorCode.UnsupportedProtocolVersion, message, { supported: [...MODERN_VERSIONS], requested }), id);
  }
  // The core defines no client notifications over HTTP (closing the stream is the cancellation).
  if (route.messageKind === 'notification') return ACCEPTED;
  const request = route.message;
  const missing = standardHeaderRejection(headers, { method: request.method, params: request.params, version });
  if (missing) return wireRejectionAnswer(missing, request.id);
  const method = Object.hasOwn(MODERN_METHODS, request.method) ? MODERN_METHODS[request.method] : modernFeature(request.method, context);
  if (!method) return jsonAnswer(404, errorMessage(request.id, jsonRpcError(ErrorCode.MethodNotFound, 'Method not found')));
  const mismatch = request.method === 'tools/call' ? paramHeaderMismatch(request, httpHeaders, context) : undefined;
  if (mismatch) return mismatch;
  const problem = method.invalid?.(request.params);
  if (problem) return jsonAnswer(200, errorMessage(request.id, jsonRpcError(ErrorCode.InvalidParams, `Invalid params for ${request.method}: ${problem}`)));
  const lacking = request.method === 'tools/call' ? missingClientCapability(request, context) : undefined;
  if (lacking) return jsonAnswer(httpStatusOf(lacking.code, 'handler'), errorMessage(request.id, lacking));
  const scope = mcpRequestScope(context);
  // An upstream tool's notifications go out on an event stream when the request asks for them.
  if (streamsNotifications(request, context, 'modern')) return streamedAnswer('modern', scope, async (within) => [(await methodAnswer(request, method, within)).message]);
  const { status, message } = await methodAnswer(request, method, scope);
  return jsonAnswer(status, message);
}

/** A method's answer: its result stamped for the wire, or its JSON-RPC error with the HTTP status that error takes. */
async function methodAnswer(request: JsonRpcRequest, method: ModernMethod, scope: McpRequestScope): Promise<{ status: number; message: unknown }> {
  const { runtime, manifestFreshMs } = scope.context;
  try {
    const result = await method.answer(request, scope);
    const stamp = { serverInfo: mcpServerInfo(runtime), cache: { ttlMs: manifestFreshMs ?? 0, cacheScope: 'private' as const }, meta: { 'toolgate/manifest_version': runtime.manifest.version } };
    return { status: 200, message: resultMessage(request.id, stampedResult(request.method, result, stamp)) };
  } catch (error) {
    if (error instanceof McpMethodError) return { status: httpStatusOf(error.error.code, 'handler'), message: errorMessage(request.id, error.error) };
    // Dispatch answers tool failures as results; this is a fault in toolgate itself.
    return { status: 200, message: errorMessage(request.id, jsonRpcError(ErrorCode.InternalError, error instanceof Error ? error.message : 'Internal error')) };
  }
}

/** A method of what else the tenant offers (resources, prompts: feature-methods.ts), served on this era. */
function modernFeature(method: string, context: McpRequestContext): ModernMethod | undefined {
  const found = featureMethod(method, context.runtime);
  return found && { invalid: (params) => issuesText(found.issues(params)), answer: (request, scope) => found.answer(request, scope, 'modern') as Promise<JsonObject> | JsonObject };
}

/** A `tools/call` whose `Mcp-Param-*` headers disagree with the arguments the tool declares them for. */
function paramHeaderMismatch(request: JsonRpcRequest, httpHeaders: Headers, context: McpRequestContext): McpAnswer | undefined {
  const params = request.params;
  const name = params?.name;
  const tool = typeof name === 'string' ? context.runtime.registry.get(name) : undefined;
  if (!tool) return undefined;
  const refused = paramHeaderRejection(toolParamHeaders(tool.definition), params?.arguments, httpHeaders);
  return refused ? wireRejectionAnswer(refused, request.id) : undefined;
}

/** Longer than any requestState toolgate hands out; bounds what a retry makes it look at. */
const MAX_REQUEST_STATE = 200;

function toolsCallProblem(params: JsonObject | undefined): string | undefined {
  if (params === undefined) return 'params must be an object {name, arguments?}';
  if (typeof params.name !== 'string') return `params.name must be a string (the tool's name), got ${params.name === undefined ? 'nothing' : JSON.stringify(params.name)?.slice(0, 60)}`;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return 'params.arguments must be an object of the tool\'s arguments';
  const key = params.idempotencyKey;
  if (key !== undefined && !(typeof key === 'string' && key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY)) return `params.idempotencyKey must be a string of 1-${MAX_IDEMPOTENCY_KEY} characters (the client's key for this call)`;
  const state = params.requestState;
  if (state !== undefined && !(typeof state === 'string' && state.length <= MAX_REQUEST_STATE)) return `params.requestState must be a string of at most ${MAX_REQUEST_STATE} characters (the requestState of the input_required answer, echoed unchanged)`;
  if (params.inputResponses !== undefined && !isPlainObject(params.inputResponses)) return 'params.inputResponses must be an object (responses keyed as the inputRequests were)';
  return undefined;
}
