import type { ConnectionAccess } from '../../connections/connection-access.ts';
import { executorAuthOf, type ExecutorAuth } from '../../connections/executor-auth.ts';
import type { ResolveSecret } from '../../crypto/secrets.ts';
import type { Fetch } from '../../egress/fetch.ts';
import { ContentOutput } from '../content-parts.ts';
import { ContentShapeError } from '../content-read.ts';
import type { ToolDefinition } from '../definition.ts';
import { ToolError } from '../errors.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import type { McpConnection } from '../mcp-client/connection.ts';
import { headerDeclarations, paramHeaders } from '../mcp-client/header-values.ts';
import { ASKING_CAPABILITIES, isModernVersion } from '../mcp-client/protocol.ts';
import { callUpstreamTool } from '../mcp-client/tool-call.ts';
import { confinedAccess } from './confined.ts';
import type { ExecutorKind } from './kind.ts';
import { McpCallRelay } from './mcp-call-relay.ts';
import { checkMcpExecutor } from './mcp-check.ts';
import { mcpResultOutput } from './mcp-result.ts';
import { sharedMcpSessionPool, type McpSessionPool } from './mcp-session-pool.ts';
import { onUpstream, type UpstreamAccess } from './mcp-upstream.ts';

export interface McpExecutorConfig {
  /** The upstream's Streamable HTTP endpoint. */
  url: string;
  /** The tool's name on the upstream server (toolgate's name may differ). */
  tool: string;
  /** Sent with every request; "env:NAME" values are resolved (see McpExecutorOptions.secrets). */
  headers?: Record<string, string>;
  /** The `mcp_imports` entry that pinned this tool, if one did. */
  server?: string;
  /**
   * The upstream's protocol revision, learnt at import: a modern one ("2026-07-28") is called
   * statelessly with the per-request envelope; a legacy one (or none: pins made before imports
   * recorded it) through an initialized session.
   */
  protocol?: string;
  /** Client capabilities declared upstream for this tool (it is offered only to clients that have them). */
  client_capabilities?: JsonObject;
  /** "required": the upstream runs the tool only as a task (2025-11-25 tasks), so it is called as one. */
  task_support?: 'required';
  /** Send the calling user's own token of this manifest connection (lib/connections). */
  auth?: ExecutorAuth;
}

export interface McpExecutorOptions {
  pool?: McpSessionPool;
  /** How "env:NAME" headers resolve: a manifest's executor gets its tenant's grants; otherwise the call's `env`. */
  secrets?: ResolveSecret;
  /** How requests go out: a manifest's executor gets the gateway's egress; otherwise the runtime's fetch. */
  fetch?: Fetch;
  /** The calling users' connection tokens, for `auth`. */
  connections?: ConnectionAccess;
}

/** How long an upstream is asked to keep a task it runs for toolgate: past any call's longest timeout (600 s). */
const TASK_TTL_MS = 15 * 60 * 1000;

const runtimeFetch: Fetch = (input, init) => fetch(input, init);

/** The pool, secrets and fetch an executor's options give, with the isolate's pool and the runtime's fetch by default. */
export function upstreamAccess(options: McpExecutorOptions): UpstreamAccess {
  return { pool: options.pool ?? sharedMcpSessionPool, secrets: options.secrets, fetch: options.fetch ?? runtimeFetch, ...(options.connections ? { connections: options.connections } : {}) };
}

/**
 * A tool on another MCP server, called with `tools/call` over Streamable HTTP in the upstream's
 * era (toolgate's own client, lib/registry/mcp-client). Its definition, tier and scopes are the
 * manifest's pin; whatever the upstream says about itself later does not change them. Results
 * pass through as the upstream sent them: content parts with their annotations and `_meta`,
 * structured content, `isError` with its content, the result's `_meta` (reserved keys dropped).
 */
export class McpToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly #config: McpExecutorConfig;
  readonly #access: UpstreamAccess;
  /** Arguments a modern upstream wants mirrored in `Mcp-Param-*` headers, from the pinned schema. */
  readonly #paramHeaders: ReturnType<typeof headerDeclarations>;

  constructor(definition: ToolDefinition, config: McpExecutorConfig, options: McpExecutorOptions = {}) {
    this.name = definition.name;
    this.definition = definition;
    this.#config = config;
    this.#access = upstreamAccess(options);
    this.#paramHeaders = isModernVersion(config.protocol) ? headerDeclarations(definition.input_schema) : [];
  }

  /** What the upstream offers the tool only to clients declaring (learnt at import), if anything. */
  get clientCapabilities(): JsonObject | undefined {
    return this.#config.client_capabilities;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput> {
    const relay = new McpCallRelay(context, { tool: this.#config.tool, upstream: this.#config.url });
    try {
      return this.#output(await this.#callUpstream(args, context, relay));
    } finally {
      relay.finish();
    }
  }

  /** The blocks, structured content, isError and `_meta` as they came: the execute stage checks and caps them. */
  #output(result: JsonObject): ContentOutput {
    const { tool, url } = this.#config;
    let output: ContentOutput;
    try {
      output = mcpResultOutput(result);
    } catch (error) {
      if (!(error instanceof ContentShapeError)) throw error;
      throw new ToolError('error', `upstream tool "${tool}" at ${url} answered a result toolgate cannot read: ${error.message}`, { upstream: url });
    }
    const silent = output.content.every((part) => part.type !== 'text') && output.structured === undefined;
    if (!output.isError || !silent) return output;
    const note = { type: 'text' as const, text: `upstream tool "${tool}" at ${url} reported an error without a message` };
    return new ContentOutput([...output.content, note], undefined, { isError: true, ...(output.meta ? { meta: output.meta } : {}) });
  }

  #callUpstream(args: JsonObject, context: ToolExecutionContext, relay: McpCallRelay): Promise<JsonObject> {
    const { tool, protocol } = this.#config;
    // What the upstream may ask of the client: what the tool is offered only with, and everything when the caller's client can answer.
    const capabilities = { ...this.#config.client_capabilities, ...(context.ask_client ? ASKING_CAPABILITIES : {}) };
    const request = { label: { method: 'tools/call', name: tool }, capabilities };
    const auth = executorAuthOf(this.#config.auth);
    return onUpstream(auth ? { ...this.#config, auth } : this.#config, this.#access, context, request, (connection) =>
      whileListening(connection, capabilities, context.signal, relay, () =>
        callUpstreamTool(connection, tool, args, {
          signal: context.signal,
          hooks: { ...relay.hooks, headers: paramHeaders(this.#paramHeaders, args) },
          // The call's traceparent in params._meta too, where the MCP semantic conventions carry it.
          meta: { ...relay.meta, ...(context.traceparent ? { traceparent: context.traceparent } : {}) },
          ...(this.#config.task_support === 'required' && !isModernVersion(protocol) ? { taskTtlMs: TASK_TTL_MS } : {}),
          ...(context.ask_client ? { ask: context.ask_client } : {}),
        }),
      ),
    );
  }
}

/**
 * Runs a call on a legacy session that declared what an upstream may ask of its client while
 * listening on the session's own stream: some servers ask there, outside the call (the reference
 * server's roots/list), and without a listener such a request is lost and the call waits out its
 * timeout; heard, it is refused at once (relay.sessionHooks). Sessions that declared nothing to
 * ask, and modern upstreams (which have no such stream), are called directly.
 */
async function whileListening<T>(connection: McpConnection, capabilities: JsonObject, signal: AbortSignal, relay: McpCallRelay, run: () => Promise<T>): Promise<T> {
  if (!Object.keys(ASKING_CAPABILITIES).some((name) => name in capabilities)) return run();
  const done = new AbortController();
  await connection.listenToSession(AbortSignal.any([signal, done.signal]), relay.sessionHooks);
  try {
    return await run();
  } finally {
    done.abort();
  }
}

/** `{"kind": "mcp", "url", "tool", "headers"?, "server"?, "protocol"?, "client_capabilities"?, "task_support"?}`: a pinned tool of an upstream MCP server. */
export const mcpExecutorKind: ExecutorKind = {
  kind: 'mcp',
  needsDefinition: true,
  check: (config, path) => checkMcpExecutor(config, path),
  baseDefinition: () => undefined,
  create: (definition, config, context) => new McpToolExecutor(definition, config as unknown as McpExecutorConfig, confinedAccess(context)),
};
