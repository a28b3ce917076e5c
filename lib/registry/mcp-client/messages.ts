import { isJsonObject, type JsonObject, type JsonValue } from '../json.ts';

/** JSON-RPC 2.0 as MCP uses it: requests, notifications and responses, one object each. */
export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: JsonValue;
}

export type RpcResponse = { jsonrpc: '2.0'; id: RequestId; result: JsonObject } | { jsonrpc: '2.0'; id: RequestId | null; error: RpcErrorObject };

/** A message read from an upstream, sorted by what it is. */
export type InboundMessage =
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification }
  | { kind: 'response'; id: RequestId | null; result?: JsonObject; error?: RpcErrorObject };

/** A JSON-RPC error the upstream answered: it heard the request and refused it. */
export class McpRpcError extends Error {
  readonly code: number;
  readonly data?: JsonValue;
  /** The HTTP status it came with, when that was not 200 (modern servers refuse bad requests with 4xx). */
  readonly httpStatus?: number;

  constructor(error: RpcErrorObject, httpStatus?: number) {
    super(error.message);
    this.name = 'McpRpcError';
    this.code = error.code;
    if (error.data !== undefined) this.data = error.data;
    if (httpStatus !== undefined) this.httpStatus = httpStatus;
  }
}

const isId = (value: unknown): value is RequestId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function errorObject(value: unknown): RpcErrorObject | undefined {
  if (!isJsonObject(value) || typeof value.code !== 'number' || typeof value.message !== 'string') return undefined;
  return { code: value.code, message: value.message, ...(value.data !== undefined ? { data: value.data } : {}) };
}

/** What one JSON value from an upstream is, or undefined when it is no JSON-RPC message. */
export function readMessage(value: unknown): InboundMessage | undefined {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0') return undefined;
  const params = value.params;
  if (params !== undefined && !isJsonObject(params)) return undefined;
  if (typeof value.method === 'string') {
    const base = { jsonrpc: '2.0' as const, method: value.method, ...(params ? { params } : {}) };
    if (isId(value.id)) return { kind: 'request', message: { ...base, id: value.id } };
    return value.id === undefined ? { kind: 'notification', message: base } : undefined;
  }
  if (!isId(value.id) && value.id !== null) return undefined;
  if (isJsonObject(value.result)) return { kind: 'response', id: value.id, result: value.result };
  const error = errorObject(value.error);
  return error ? { kind: 'response', id: value.id, error } : undefined;
}

let lastId = 0;

/**
 * A request id no other request of this isolate uses: calls share a kept session, and an upstream
 * matches answers to requests by id within it.
 */
export function nextRequestId(): number {
  lastId = lastId >= Number.MAX_SAFE_INTEGER ? 1 : lastId + 1;
  return lastId;
}
