/**
 * The typed outcome codes of a tool call (DESIGN.md "Error codes"). A code is also the
 * result's `status`; `ok` is the only success.
 */
export const ERROR_CODES = [
  'unknown_tool',
  'invalid_arguments',
  'forbidden',
  'denied',
  'pending_approval',
  'expired',
  'timeout',
  'error',
  'in_progress',
  'conflict',
  'unavailable',
  'indeterminate',
  'rate_limited',
  /** The tool acts as the end user, who has not connected the service yet: `details.authorization_url` is where they do (lib/connections). */
  'authorization_required',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
export type CallStatus = 'ok' | ErrorCode;

/**
 * Thrown by executors (and pipeline stages) to end a call with a specific code and a message
 * the model can read. Any other thrown value becomes code `error`.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }
}
