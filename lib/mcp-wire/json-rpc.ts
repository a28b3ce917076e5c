/**
 * JSON-RPC 2.0 as MCP uses it: the message shapes (checked as the official SDKs check them, so
 * both sides of toolgate agree with the SDKs on what a message is), the error codes with the
 * HTTP status each gets when the transport rejects a request, and the answers' shapes.
 */

export type JsonObject = Record<string, unknown>;
export type JsonRpcId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: JsonObject;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  error: JsonRpcError;
}

/** A message read from the wire, by kind. */
export type JsonRpcMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResultResponse | JsonRpcErrorResponse };

/** JSON-RPC's own codes, MCP's (-32020 and below are the 2026-07-28 transport's), and the SDKs' generic server error. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP's resource-not-found (legacy revisions; 2026-07-28 answers InvalidParams instead). */
  ResourceNotFound: -32002,
  /** The SDKs' transport errors (unacceptable media types, a method not allowed). */
  ServerError: -32000,
  /** The SDKs' unknown session (HTTP 404): the client initializes again. */
  SessionNotFound: -32001,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * The HTTP status of an error the transport answers before any method runs (the 2026-07-28
 * rule). Errors a method's handler answers are in-band (200), except a missing client
 * capability, whose 400 the spec attaches to the error itself. `-32602` has no entry: only a
 * malformed `_meta` envelope is rejected with it at the transport, and that carries its status.
 */
export const REJECTION_HTTP_STATUS: Readonly<Record<number, number>> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
};

/** The HTTP status of a JSON-RPC error, by where it came from. */
export function httpStatusOf(code: number, origin: 'transport' | 'handler'): number {
  if (origin === 'handler') return code === ErrorCode.MissingRequiredClientCapability ? 400 : 200;
  return REJECTION_HTTP_STATUS[code] ?? 400;
}

export function jsonRpcError(code: number, message: string, data?: unknown): JsonRpcError {
  return { code, message, ...(data !== undefined ? { data } : {}) };
}

/** A result, with its keys in the order the SDKs send them. */
export function resultMessage(id: JsonRpcId, result: unknown) {
  return { result, jsonrpc: '2.0' as const, id };
}

/** A method's error answer (the SDKs' key order). */
export function errorMessage(id: JsonRpcId, error: JsonRpcError) {
  return { jsonrpc: '2.0' as const, id, error };
}

/** A transport's rejection of a request: the request's id when it could be read, else null (the SDKs' key order). */
export function rejectionMessage(id: JsonRpcId | null, error: JsonRpcError) {
  return { jsonrpc: '2.0' as const, error, id };
}

/** The id of a request body, when it names a method and an id that can be echoed in an error answer. */
export function echoableId(body: unknown): JsonRpcId | null {
  if (!isPlainObject(body) || typeof body.method !== 'string') return null;
  const id = body.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Reads one JSON-RPC message as MCP defines it (as the official SDKs' guards do): exactly the
 * keys of its kind, version "2.0", an id that is a string or a safe integer, params (if any) an
 * object whose `_meta` (if any) carries a well-formed progress token and related task. Anything
 * else is not a message (undefined).
 */
export function readJsonRpcMessage(value: unknown): JsonRpcMessage | undefined {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string' || !paramsWellFormed(value.params)) return undefined;
    if ('id' in value) return hasOnlyKeys(value, REQUEST_KEYS) && isJsonRpcId(value.id) ? { kind: 'request', message: value as unknown as JsonRpcRequest } : undefined;
    return hasOnlyKeys(value, NOTIFICATION_KEYS) ? { kind: 'notification', message: value as unknown as JsonRpcNotification } : undefined;
  }
  if ('result' in value) {
    // A result's `_meta` only has to be an object (as SDK v2 reads it; v1 held it to a request's
    // rules): a peer's odd metadata must not make its whole answer unreadable.
    const ok = hasOnlyKeys(value, RESULT_KEYS) && isJsonRpcId(value.id) && isPlainObject(value.result) && (value.result._meta === undefined || isPlainObject(value.result._meta));
    return ok ? { kind: 'response', message: value as unknown as JsonRpcResultResponse } : undefined;
  }
  const ok = hasOnlyKeys(value, ERROR_KEYS) && (!('id' in value) || isJsonRpcId(value.id)) && errorWellFormed(value.error);
  return ok ? { kind: 'response', message: value as unknown as JsonRpcErrorResponse } : undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

/** MCP's reserved `_meta` key naming the task a request belongs to (2025-11-25). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

function paramsWellFormed(params: unknown): boolean {
  return params === undefined || (isPlainObject(params) && metaWellFormed(params._meta));
}

function metaWellFormed(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  const token = meta.progressToken;
  if (token !== undefined && !isJsonRpcId(token)) return false;
  const task = meta[RELATED_TASK_META_KEY];
  return task === undefined || (isPlainObject(task) && typeof task.taskId === 'string');
}

function errorWellFormed(error: unknown): boolean {
  return isPlainObject(error) && Number.isSafeInteger(error.code) && typeof error.message === 'string';
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every own key is an allowed one (a `__proto__` own key, as JSON.parse makes it, counts). */
export function hasOnlyKeys(value: JsonObject, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
