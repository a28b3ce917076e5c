import type { ResolveSecret } from '../../crypto/secrets.ts';
import type { Fetch } from '../../egress/fetch.ts';
import { ContentOutput } from '../content-parts.ts';
import { ContentShapeError } from '../content-read.ts';
import type { ToolDefinition } from '../definition.ts';
import { ToolError } from '../errors.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import { McpConnection } from '../mcp-client/connection.ts';
import { headerDeclarations, paramHeaders } from '../mcp-client/header-values.ts';
import { ASKING_CAPABILITIES, isModernVersion } from '../mcp-client/protocol.ts';
import { callUpstreamTool } from '../mcp-client/tool-call.ts';
import type { McpEndpoint } from '../mcp-client/transport.ts';
import { resolveHeaders } from '../mcp-endpoint.ts';
import { isSessionGone, upstreamCallFailure, upstreamUnavailable } from '../mcp-failure.ts';
import { confinedAccess } from './confined.ts';
import type { ExecutorKind } from './kind.ts';
import { McpCallRelay } from './mcp-call-relay.ts';
import { checkMcpExecutor } from './mcp-check.ts';
import { mcpResultOutput } from './mcp-result.ts';
import { sharedMcpSessionPool, type McpSessionPool } from './mcp-session-pool.ts';

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
}

export interface McpExecutorOptions {
  pool?: McpSessionPool;
  /** How "env:NAME" headers resolve: a manifest's executor gets its tenant's grants; otherwise the call's `env`. */
  secrets?: ResolveSecret;
  /** How requests go out: a manifest's executor gets the gateway's egress; otherwise the runtime's fetch. */
  fetch?: Fetch;
}

/** How long an upstream is asked to keep a task it runs for toolgate: past any call's longest timeout (600 s). */
const TASK_TTL_MS = 15 * 60 * 1000;

const runtimeFetch: Fetch = (input, init) => fetch(input, init);

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
  readonly #pool: McpSessionPool;
  readonly #secrets: ResolveSecret | undefined;
  readonly #fetch: Fetch;
  /** Arguments a modern upstream wants mirrored in `Mcp-Param-*` headers, from the pinned schema. */
  readonly #paramHeaders: ReturnType<typeof headerDeclarations>;

  constructor(definition: ToolDefinition, config: McpExecutorConfig, options: McpExecutorOptions = {}) {
    this.name = definition.name;
    this.definition = definition;
    this.#config = config;
    this.#pool = options.pool ?? sharedMcpSessionPool;
    this.#secrets = options.secrets;
    this.#fetch = options.fetch ?? runtimeFetch;
    this.#paramHeaders = isModernVersion(config.protocol) ? headerDeclarations(definition.input_schema) : [];
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

  async #callUpstream(args: JsonObject, context: ToolExecutionContext, relay: McpCallRelay): Promise<JsonObject> {
    const { url, tool, protocol } = this.#config;
    const endpoint = this.#endpoint(context);
    const traced = tracedEndpoint(endpoint, context.traceparent);
    // What the upstream may ask of the client: what the tool is offered only with, and everything when the caller's client can answer.
    const capabilities = { ...this.#config.client_capabilities, ...(context.ask_client ? ASKING_CAPABILITIES : {}) };
    const call = (connection: McpConnection) =>
      callUpstreamTool(connection, tool, args, {
        signal: context.signal,
        hooks: { ...relay.hooks, headers: paramHeaders(this.#paramHeaders, args) },
        // The call's traceparent in params._meta too, where the MCP semantic conventions carry it.
        meta: { ...relay.meta, ...(context.traceparent ? { traceparent: context.traceparent } : {}) },
        ...(this.#config.task_support === 'required' && !isModernVersion(protocol) ? { taskTtlMs: TASK_TTL_MS } : {}),
        ...(context.ask_client ? { ask: context.ask_client } : {}),
      });
    if (isModernVersion(protocol)) {
      const connection = new McpConnection(traced, { era: 'modern', protocolVersion: protocol!, capabilities, ...(context.log_level ? { logLevel: context.log_level } : {}) });
      try {
        return await call(connection);
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason;
        throw upstreamCallFailure(url, tool, error);
      }
    }
    for (let attempt = 1; ; attempt++) {
      const pooled = await this.#pool.acquire(endpoint, capabilities, context.signal);
      try {
        return await call(new McpConnection(traced, { era: 'legacy', ...pooled.session }));
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason;
        const gone = isSessionGone(error);
        if (gone) this.#pool.drop(pooled);
        // A kept session may have died with an upstream restart (nothing ran): one new session, one more try.
        if (!gone || pooled.fresh || attempt > 1) throw upstreamCallFailure(url, tool, error);
      }
    }
  }

  /** The upstream with the manifest's headers resolved; a secret that does not resolve makes it unavailable. */
  #endpoint(context: ToolExecutionContext): McpEndpoint {
    try {
      return { url: this.#config.url, headers: resolveHeaders(this.#config.headers, this.#secrets ?? context.env), fetch: this.#fetch };
    } catch (error) {
      throw upstreamUnavailable(this.#config.url, error);
    }
  }
}

/**
 * With tracing on, the call's requests carry its traceparent instead of a manifest's own trace
 * headers. Sessions are pooled by the untraced endpoint, so they are still shared.
 */
function tracedEndpoint(endpoint: McpEndpoint, traceparent: string | undefined): McpEndpoint {
  if (!traceparent) return endpoint;
  const headers = Object.fromEntries(Object.entries(endpoint.headers).filter(([name]) => !['traceparent', 'tracestate'].includes(name.toLowerCase())));
  return { ...endpoint, headers: { ...headers, traceparent } };
}

/** `{"kind": "mcp", "url", "tool", "headers"?, "server"?, "protocol"?, "client_capabilities"?, "task_support"?}`: a pinned tool of an upstream MCP server. */
export const mcpExecutorKind: ExecutorKind = {
  kind: 'mcp',
  needsDefinition: true,
  check: (config, path) => checkMcpExecutor(config, path),
  baseDefinition: () => undefined,
  create: (definition, config, context) => new McpToolExecutor(definition, config as unknown as McpExecutorConfig, confinedAccess(context)),
};
