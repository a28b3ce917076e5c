import type { ToolCall, ToolResult } from '../call.ts';

export const CALL_FORMATS = ['openai', 'responses', 'anthropic', 'gemini'] as const;
export type CallFormat = (typeof CALL_FORMATS)[number];

/** A request body part that does not match the provider's shape; the HTTP layer answers 400. */
export class CallFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallFormatError';
  }
}

/** How one provider's tool calls come in and its results go back. */
export interface ProviderFormat {
  /** Reads the tool calls out of the provider's message shape (the request body). */
  readCalls(body: Record<string, unknown>, threadId: string): Promise<ToolCall[]> | ToolCall[];
  /** The messages to append to the conversation. */
  writeResults(results: ToolResult[], calls: ToolCall[]): unknown[];
}

export function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new CallFormatError(`${what} must be a non-empty string`);
  return value;
}

export function requireArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new CallFormatError(`${what} must be an array`);
  return value;
}

export function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CallFormatError(`${what} must be an object`);
  return value as Record<string, unknown>;
}
