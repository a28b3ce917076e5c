import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { CallToolResultSchema, ErrorCode, InitializeRequestSchema, McpError, RELATED_TASK_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { callMcpTool, listMcpTools, mcpRequestScope, mcpServerInfo, type McpRequestContext } from './methods.ts';

type Json = Record<string, unknown>;
type RequestId = string | number;

/** An answer as plain data (a JSON text, or no body for 202), so a Hono route can send it without a foreign Response. */
export interface McpAnswer {
  status: 200 | 202;
  /** JSON text (Content-Type: application/json), or null for 202. */
  body: string | null;
}

/** The answer as the SDK's transport would build it. */
export function mcpAnswerResponse(answer: McpAnswer): Response {
  return answer.body === null ? new Response(null, { status: answer.status }) : new Response(answer.body, { status: answer.status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * The single messages a stateless MCP client sends most (`tools/call`, `tools/list`, `ping`,
 * `initialize`, notifications), answered without building the SDK's Server and transport for
 * the request: those cost about a third of a `tools/call` (a Server with its handler maps, zod
 * unions over every message, the close path). Only a message the SDK would accept as it stands
 * is answered here, with the bytes the SDK gives (test/mcp/stateless-request.test.ts compares
 * the two paths); anything else (batches, responses, malformed or unknown messages, bad
 * headers, progress tokens, tasks) gets `undefined`, and the caller hands it to the SDK.
 * Nothing is kept between requests: every answer comes from this request's context.
 */
export function answerStatelessMcpRequest(request: Request, body: unknown, context: McpRequestContext): Promise<McpAnswer> | undefined {
  if (!headersAcceptable(request.headers) || !isPlainObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') return undefined;
  if (!hasOnlyKeys(body, 'id' in body ? REQUEST_KEYS : NOTIFICATION_KEYS) || !paramsAcceptable(body.params)) return undefined;
  // A notification needs no answer; a stateless server has nothing to do with one.
  if (!('id' in body)) return Promise.resolve({ status: 202, body: null });
  const id = body.id;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  return answerMethod(body.method, id as RequestId, body, context);
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);

function answerMethod(method: string, id: RequestId, body: Json, context: McpRequestContext): Promise<McpAnswer> | undefined {
  const params = body.params as Json | undefined;
  switch (method) {
    case 'ping':
      return Promise.resolve(jsonRpcResult(id, {}));
    case 'tools/list':
      if (params?.cursor !== undefined) return undefined;
      return Promise.resolve(jsonRpcResult(id, listMcpTools(mcpRequestScope(context), id, params?._meta as Json | undefined)));
    case 'tools/call':
      if (!params || typeof params.name !== 'string' || 'task' in params || !(params.arguments === undefined || isPlainObject(params.arguments))) return undefined;
      if (params.arguments !== undefined && hasProtoKey(params.arguments)) return undefined;
      return callTool(id, params as { name: string; arguments?: Json; _meta?: Json }, context);
    case 'initialize':
      return InitializeRequestSchema.safeParse(body).success ? Promise.resolve(jsonRpcResult(id, initializeResult(params as Json, context))) : undefined;
    default:
      return undefined;
  }
}

/** The SDK's Server answers initialize with the client's version when it supports it, else its latest. */
function initializeResult(params: Json, context: McpRequestContext) {
  const requested = params.protocolVersion as string;
  const { info, capabilities, instructions } = mcpServerInfo(context.runtime);
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
    capabilities,
    serverInfo: info,
    ...(instructions && { instructions }),
  };
}

async function callTool(id: RequestId, params: { name: string; arguments?: Json; _meta?: Json }, context: McpRequestContext): Promise<McpAnswer> {
  try {
    const result = await callMcpTool(mcpRequestScope(context), id, params);
    // A plain text result is already what the SDK's result schema gives; parts and structured
    // content (shaped by tools) go through that schema as the SDK would put them.
    if (isPlainTextResult(result)) return jsonRpcResult(id, result);
    const checked = CallToolResultSchema.safeParse(result);
    if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`);
    return jsonRpcResult(id, checked.data);
  } catch (error) {
    return jsonRpcError(id, error);
  }
}

/** One text block of exactly `type` and `text`, nothing structured: the schema would change nothing. */
function isPlainTextResult(result: { content: unknown[]; structuredContent?: unknown }): boolean {
  if ('structuredContent' in result || result.content.length !== 1) return false;
  const block = result.content[0] as Json;
  const keys = Object.keys(block);
  return keys.length === 2 && keys[0] === 'type' && keys[1] === 'text' && block.type === 'text' && typeof block.text === 'string';
}

/** The SDK's checks on a POST before it reads a message; a request failing one gets the SDK's own answer. */
function headersAcceptable(headers: Headers): boolean {
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(headers.get('content-type'))) return false;
  const version = headers.get('mcp-protocol-version');
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** Params the SDK's base schema takes without change: absent, or an object whose `_meta` asks for no progress or task. */
function paramsAcceptable(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isPlainObject(params) || hasProtoKey(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  return isPlainObject(meta) && !hasProtoKey(meta) && !('progressToken' in meta) && !(RELATED_TASK_META_KEY in meta);
}

/**
 * A `__proto__` key (JSON.parse makes it an own key): the SDK's schemas copy objects key by key
 * and drop it, so the message it would handle is not the one here; it is left to the SDK.
 */
function hasProtoKey(value: Json): boolean {
  return Object.hasOwn(value, '__proto__');
}

function jsonRpcResult(id: RequestId, result: unknown): McpAnswer {
  return jsonResponse({ result, jsonrpc: '2.0', id });
}

/** A handler's failure as the SDK's Protocol reports it. */
function jsonRpcError(id: RequestId, error: unknown): McpAnswer {
  const fields = (error ?? {}) as { code?: unknown; message?: string; data?: unknown };
  return jsonResponse({
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(fields.code) ? fields.code : ErrorCode.InternalError,
      message: fields.message ?? 'Internal error',
      ...(fields.data !== undefined && { data: fields.data }),
    },
  });
}

function jsonResponse(message: Json): McpAnswer {
  return { status: 200, body: JSON.stringify(message) };
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: Json, allowed: Set<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
