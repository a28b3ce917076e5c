import { ErrorCode, jsonRpcError, type JsonRpcError } from './json-rpc.ts';

/**
 * A request the transport refuses before any method runs: the HTTP status, the JSON-RPC error,
 * and the cell of the validation ladder it came from (a stable name for tests and logs).
 */
export interface WireRejection {
  kind: 'reject';
  cell: string;
  status: number;
  error: JsonRpcError;
}

export function rejection(cell: string, status: number, error: JsonRpcError): WireRejection {
  return { kind: 'reject', cell, status, error };
}

/**
 * A header that disagrees with the body (or is missing, or cannot be decoded): 400 with -32020,
 * naming the header value and what the body says, so the client can see which side to fix.
 */
export function headerMismatch(cell: string, header: string, body: string): WireRejection {
  return rejection(cell, 400, jsonRpcError(ErrorCode.HeaderMismatch, `Bad Request: the request headers and body disagree: ${body}`, { mismatch: { header, body } }));
}
