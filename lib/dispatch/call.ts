import type { ClientCall } from '../registry/client-call.ts';
import type { ContentPart } from '../registry/content-parts.ts';
import type { JsonObject } from '../registry/json.ts';
import type { CallStatus, ErrorCode } from '../registry/errors.ts';

/** A tool call in toolgate's own shape. `arguments` is an object or a JSON string. */
export interface ToolCall {
  call_id: string;
  name: string;
  arguments?: unknown;
  /** Set when the call was made from a provider's native tool item; the format writes its result back as that item's output. */
  native?: NativeItem;
}

/**
 * The provider item a call was made from (a Responses `apply_patch_call` or `shell_call`, an
 * Anthropic `tool_use` of a native tool). One item may become several calls (a shell_call's
 * commands): they share `call_id` and run in order.
 */
export interface NativeItem {
  /** The item's type, e.g. "shell_call". */
  type: string;
  /** The native tool as the model holds it (e.g. "str_replace_based_edit_tool"): the tool's messages name it, not the tool the call runs as. */
  tool: string;
  /** The text editor's command the call stands for ("create"): messages name it with the tool. */
  command?: string;
  /**
   * The model's name for each argument the call runs with (edit_file's old_string is the text
   * editor's old_str, shell's command a shell_call's commands[0]). An argument missing here was
   * set by the gateway (bash's timeout_ms): no message names it (lib/dispatch/call-naming.ts).
   */
  parameters: Readonly<Record<string, string>>;
  /** The item's own call id (the call's own id may add a suffix to it). */
  call_id: string;
  /** The most characters of output the item asked for (a shell_call's max_output_length). */
  max_output_length?: number;
}

/** Consecutive calls made from one native item form a group; every other call is a group of its own. */
export function groupByNativeItem(calls: ToolCall[]): ToolCall[][] {
  const groups: ToolCall[][] = [];
  let previous: ToolCall | undefined;
  for (const call of calls) {
    const sameItem = previous?.native !== undefined && call.native?.type === previous.native.type && call.native.call_id === previous.native.call_id;
    if (sameItem) groups[groups.length - 1].push(call);
    else groups.push([call]);
    previous = call;
  }
  return groups;
}

/** A command's end as a Responses shell_call_output entry states it. */
export type CommandOutcome = { type: 'exit'; exit_code: number } | { type: 'timeout' };

export interface CallFailure {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The outcome of one call, as the agent receives it (DESIGN.md "Error codes"). */
export interface ToolResult {
  call_id: string;
  name: string;
  status: CallStatus;
  is_error: boolean;
  /** What the model reads: the (truncated) output, or the error message. With content parts, their text rendering. */
  content: string;
  /**
   * The output as content parts (text truncated, binary parts checked and capped), present when
   * one string cannot carry it: the tool answered an image, audio, a resource or structured content.
   */
  content_parts?: ContentPart[];
  /** The tool's structured result (MCP `structuredContent`), when it gave one. */
  structured_content?: JsonObject;
  /** The tool's own result metadata (an upstream MCP tool's `_meta`), without the keys reserved for toolgate and MCP. */
  meta?: JsonObject;
  truncated: boolean;
  error?: CallFailure;
  duration_ms: number;
  /** Set when the result was stored earlier and is being replayed (idempotency). */
  replayed?: boolean;
  /**
   * How a command of a Responses shell_call ended, read from its whole output: the tool's output
   * limits may have cut the exit code or the timeout note from `content`. Set on such a command's
   * `ok` result (stored with it, so a replay keeps it); its output entry and whether the next
   * command runs follow it.
   */
  command_outcome?: CommandOutcome;
  /**
   * Set for a tool whose execution lives in the agent's client (executor kind `client`): the
   * call passed every check and governance, and the client is to run it; toolgate did not.
   */
  client_call?: ClientCall;
}

export function failureResult(call: Pick<ToolCall, 'call_id' | 'name'>, failure: CallFailure, startedAt: number): ToolResult {
  return {
    call_id: call.call_id,
    name: call.name,
    status: failure.code,
    is_error: true,
    content: failure.message,
    truncated: false,
    error: failure,
    duration_ms: elapsedMs(startedAt),
  };
}

export function elapsedMs(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000) / 1000;
}
