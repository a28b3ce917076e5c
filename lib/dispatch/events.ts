import type { ToolResult } from './call.ts';

/** Emitted around every call. `output` on end is the full, untruncated output. */
export type ToolCallEvent =
  | { type: 'tool_call.start'; call_id: string; name: string; thread_id: string; tenant: string; arguments: unknown }
  | { type: 'tool_call.end'; call_id: string; name: string; thread_id: string; tenant: string; result: ToolResult; output: string };

export type EventSink = (event: ToolCallEvent) => void;

/** One JSON object per line, with an `event` field (DESIGN.md "Conventions"). */
export type Logger = (event: string, fields: Record<string, unknown>) => void;

export const silentLogger: Logger = () => {};

export const jsonLineLogger: Logger = (event, fields) => {
  console.log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
};
