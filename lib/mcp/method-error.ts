import { ErrorCode, jsonRpcError, type JsonRpcError } from '../mcp-wire/json-rpc.ts';

/**
 * A method's JSON-RPC error answer (an unknown resource, invalid params for a prompt, a refused
 * read), thrown by the method and answered in-band by the era's server with this code and data.
 */
export class McpMethodError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpMethodError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** The error a method's failure is answered with: its own, or -32603 for a fault in toolgate itself. */
export function methodFailure(error: unknown): JsonRpcError {
  if (error instanceof McpMethodError) return jsonRpcError(error.code, error.message, error.data);
  return jsonRpcError(ErrorCode.InternalError, error instanceof Error ? error.message : 'Internal error');
}
