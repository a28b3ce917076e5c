import type { ConnectionCaller, ConnectionUse } from '../connections/connection-access.ts';
import type { ClientCallOutput } from './client-call.ts';
import type { ContentOutput } from './content-parts.ts';
import type { ToolDefinition, ToolDefinitionInput } from './definition.ts';
import { defineTool } from './definition.ts';
import type { JsonObject, JsonValue } from './json.ts';

/** What an executor knows about the call it runs. */
export interface ToolExecutionContext {
  /** Aborted when the call times out; long-running work should stop when it fires. */
  signal: AbortSignal;
  call_id: string;
  thread_id: string;
  tenant: string;
  principal: string;
  /** The runtime's environment (bindings on Workers), where `env:NAME` secrets resolve. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Set when the policy granted the call by a read-only class (`read_only_commands`): the tool
   * must run it read-only (the shell tool asks the exec-server for a read-only workspace and no
   * network). Never set on a call a human approved.
   */
  read_only?: boolean;
  /**
   * Set on every call the policy granted (no human approved it): the longest the tool may let
   * it run, whatever its arguments ask (the shell tool cuts timeout_ms to it). Never set on a
   * call a human approved, which keeps the tool's own maximum.
   */
  max_timeout_ms?: number;
  /**
   * The W3C `traceparent` of the span running this call, when tracing is on: executors send it
   * (and nothing else of the gateway's tracing) with their requests, so a tool's own spans join the trace.
   */
  traceparent?: string;
  /**
   * The provider's native tool the model called this tool through, when it did
   * (`str_replace_based_edit_tool`, `bash`; the Responses API's `apply_patch`, `shell`): the
   * model holds that tool, not this one, so the tool's messages name it and its parameters.
   */
  native_tool?: string;
  /**
   * Whoever listens for what an upstream says about this call while it runs (an MCP client whose
   * request can stream it): progress and log notifications come here. Without it they are
   * dropped and counted (the `mcp.notifications.dropped` log line).
   */
  notify?: (notification: ToolNotification) => void;
  /** The caller's progress token: when set, upstreams are asked for progress, which reaches `notify` under this token. */
  progress_token?: string | number;
  /** The least severe log level the caller wants from upstreams (MCP's levels); 2026-07-28 upstreams send no log messages without one. */
  log_level?: string;
  /**
   * Relays a request an upstream makes of its client (sampling/createMessage, elicitation/create,
   * roots/list) to the caller's client, resolving with that client's answer. Without it such a
   * request is refused at once, and the tool fails fast instead of waiting out its timeout.
   */
  ask_client?: (request: { method: string; params: JsonObject }, signal: AbortSignal) => Promise<JsonObject>;
  /** Where the caller reached the gateway and its sign-in token: what a tool with `auth: {connection}` needs (lib/connections). */
  connection_caller?: ConnectionCaller;
  /** Where a tool acting as the user notes which connection and grant it used: the call's audit records them. */
  connections_used?: ConnectionUse[];
  /** The gateway's log (one JSON object per line), for what an executor observes about the call. */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /**
   * Who the pipeline runs the call for, for tools that answer with other tools (search_tools):
   * the caller's scopes (absent: a trusted in-process caller) and the format its client takes
   * tool definitions in. Unset outside the pipeline (an approved call's run), where such a tool
   * must refuse rather than guess.
   */
  caller?: CallerView;
}

/** ToolExecutionContext.caller. */
export interface CallerView {
  scopes?: ReadonlySet<string>;
  /** A GET /v1/tools format name (toolgate, openai, responses, anthropic, gemini, mcp). */
  tool_format: string;
}

/** A notification an upstream sent about a running call, for `notify`. */
export interface ToolNotification {
  method: 'notifications/progress' | 'notifications/message';
  params: JsonObject;
}

/** What a caller's client can take from upstreams during its calls (set by the MCP face per request). */
export type CallRelay = Pick<ToolExecutionContext, 'notify' | 'progress_token' | 'log_level' | 'ask_client'>;

/**
 * An executor's answer: text for the model, JSON that is serialised for it, a ContentOutput
 * (content parts: images, audio, resources, plus structured content), or a ClientCallOutput
 * when the agent's client runs the tool instead.
 */
export type ToolOutput = string | JsonValue | ContentOutput | ClientCallOutput;

/** One tool: its definition and how to run it. */
export interface ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput>;
}

export type ToolHandler = (args: JsonObject, context: ToolExecutionContext) => Promise<ToolOutput> | ToolOutput;

/** Wraps an async function as a tool. */
export class FnToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly #handler: ToolHandler;

  constructor(definition: ToolDefinitionInput, handler: ToolHandler) {
    this.definition = defineTool(definition);
    this.name = this.definition.name;
    this.#handler = handler;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput> {
    return this.#handler(args, context);
  }
}
