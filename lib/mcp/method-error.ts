import type { JsonRpcError } from '../mcp-wire/json-rpc.ts';

/**
 * Thrown by a method's handler to answer a JSON-RPC error of its choosing (an unknown task is
 * -32602, a capability the client did not declare -32021), instead of the generic internal
 * error a thrown fault gets.
 */
export class McpMethodError extends Error {
  readonly error: JsonRpcError;

  constructor(error: JsonRpcError) {
    super(error.message);
    this.name = 'McpMethodError';
    this.error = error;
  }
}
