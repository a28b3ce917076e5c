/**
 * How talking to an upstream can fail below JSON-RPC. lib/registry/mcp-upstream/failure.ts turns each into
 * words an operator can act on, and decides whether a failed call may have run.
 */

/** The upstream answered an HTTP status other than success; `detail` is an excerpt of its body. */
export class McpHttpError extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(`HTTP ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'McpHttpError';
    this.status = status;
    this.detail = detail;
  }
}

/** The upstream answered, but not as an MCP server does (another content type, no JSON-RPC): nothing ran. */
export class NotMcpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotMcpError';
  }
}

/**
 * The answer stopped making sense, or stopped, after the upstream had the request: an event
 * stream that ended (or broke) before the answer, or carried something that is not JSON-RPC.
 */
export class BrokenAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokenAnswerError';
  }
}
