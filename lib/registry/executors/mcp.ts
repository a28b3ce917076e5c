import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResolveSecret } from '../../crypto/secrets.ts';
import type { Fetch } from '../../egress/fetch.ts';
import type { ContentOutput } from '../content-parts.ts';
import { ContentShapeError } from '../content-read.ts';
import { errorText } from '../content-text.ts';
import type { ToolDefinition } from '../definition.ts';
import { ToolError } from '../errors.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import { resolveHeaders, resumeMcpClient } from '../mcp-connect.ts';
import { isSessionGone, upstreamCallFailure, upstreamUnavailable } from '../mcp-failure.ts';
import { confinedAccess } from './confined.ts';
import type { ExecutorKind } from './kind.ts';
import { sharedMcpSessionPool, type McpSessionPool, type PooledSession } from './mcp-session-pool.ts';
import { checkMcpExecutor } from './mcp-check.ts';
import { mcpResultOutput } from './mcp-result.ts';

export interface McpExecutorConfig {
  /** The upstream's Streamable HTTP endpoint. */
  url: string;
  /** The tool's name on the upstream server (toolgate's name may differ). */
  tool: string;
  /** Sent with every request; "env:NAME" values are resolved (see McpExecutorOptions.secrets). */
  headers?: Record<string, string>;
  /** The `mcp_imports` entry that pinned this tool, if one did. */
  server?: string;
}

export interface McpExecutorOptions {
  pool?: McpSessionPool;
  /** How "env:NAME" headers resolve: a manifest's executor gets its tenant's grants; otherwise the call's `env`. */
  secrets?: ResolveSecret;
  /** How requests go out: a manifest's executor gets the gateway's egress; otherwise the runtime's fetch. */
  fetch?: Fetch;
}

/**
 * The SDK's own per-request timeout is pushed out of the way: the pipeline's AbortSignal is
 * the call's timeout (the tool's `timeout_ms`), and it cancels the request upstream too.
 */
const SDK_TIMEOUT_MS = 2_147_483_647;

/**
 * A tool on another MCP server, called with `tools/call` over Streamable HTTP. Its definition,
 * tier and scopes are the manifest's pin; whatever the upstream says about itself later does
 * not change them.
 */
export class McpToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly #config: McpExecutorConfig;
  readonly #pool: McpSessionPool;
  readonly #secrets: ResolveSecret | undefined;
  readonly #fetch: Fetch | undefined;

  constructor(definition: ToolDefinition, config: McpExecutorConfig, options: McpExecutorOptions = {}) {
    this.name = definition.name;
    this.definition = definition;
    this.#config = config;
    this.#pool = options.pool ?? sharedMcpSessionPool;
    this.#secrets = options.secrets;
    this.#fetch = options.fetch;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput> {
    const result = await this.#callUpstream(args, context);
    let output: ContentOutput;
    try {
      output = mcpResultOutput(result);
    } catch (error) {
      if (!(error instanceof ContentShapeError)) throw error;
      throw new ToolError('error', `upstream tool "${this.#config.tool}" at ${this.#config.url} answered a result toolgate cannot read: ${error.message}`, { upstream: this.#config.url });
    }
    if (result.isError) {
      const text = errorText(output.content, output.structured);
      throw new ToolError('error', text || `upstream tool "${this.#config.tool}" at ${this.#config.url} reported an error without a message`, { upstream: this.#config.url });
    }
    // The blocks and structured content as they came: the execute stage checks and caps them.
    return output;
  }

  async #callUpstream(args: JsonObject, context: ToolExecutionContext): Promise<CallToolResult> {
    const { url, tool } = this.#config;
    let headers: Record<string, string>;
    try {
      headers = resolveHeaders(this.#config.headers, this.#secrets ?? context.env);
    } catch (error) {
      throw upstreamUnavailable(url, error);
    }
    for (let attempt = 1; ; attempt++) {
      const pooled = await this.#pool.acquire(url, headers, context.signal, this.#fetch);
      try {
        return await this.#send(pooled, headers, args, context);
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason;
        const gone = isSessionGone(error);
        if (gone) this.#pool.drop(pooled);
        // A kept session may have died with an upstream restart (nothing ran): one new session, one more try.
        if (!gone || pooled.fresh || attempt > 1) throw upstreamCallFailure(url, tool, error);
      }
    }
  }

  /**
   * One tools/call on a client built for this call around the kept session. With tracing on, the
   * call's traceparent goes as an HTTP header and in `params._meta` (where the MCP semantic
   * conventions carry it); the pool's key never includes it, so sessions are still shared.
   */
  async #send(pooled: PooledSession, headers: Record<string, string>, args: JsonObject, context: ToolExecutionContext): Promise<CallToolResult> {
    const { signal, traceparent } = context;
    const sent = traceparent ? { ...withoutTraceHeaders(headers), traceparent } : headers;
    const client = await resumeMcpClient(this.#config.url, sent, pooled.session, { signal, fetch: this.#fetch });
    const params = { name: this.#config.tool, arguments: args, ...(traceparent ? { _meta: { traceparent } } : {}) };
    return (await client.callTool(params, undefined, { signal, timeout: SDK_TIMEOUT_MS })) as CallToolResult;
  }
}

/** A manifest's headers without its own trace context: the gateway's traceparent replaces it. */
function withoutTraceHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !['traceparent', 'tracestate'].includes(name.toLowerCase())));
}

/** `{"kind": "mcp", "url", "tool", "headers"?}`: a pinned tool of an upstream MCP server. */
export const mcpExecutorKind: ExecutorKind = {
  kind: 'mcp',
  needsDefinition: true,
  check: (config, path) => checkMcpExecutor(config, path),
  baseDefinition: () => undefined,
  create: (definition, config, context) => new McpToolExecutor(definition, config as unknown as McpExecutorConfig, confinedAccess(context)),
};
