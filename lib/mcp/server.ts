import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { dispatchCall } from '../dispatch/pipeline.ts';
import type { CallerContext } from '../dispatch/context.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Principal } from '../governance/api-keys.ts';
import { requestPatternBudget, type PatternBudget } from '../patterns/index.ts';
import { ValidationBudget } from '../validation/work-budget.ts';
import { toMcpTools } from '../registry/formats/mcp.ts';
import { toCallToolResult } from './call-result.ts';
import { mcpCallIdentity } from './call-identity.ts';
import type { Span } from '../telemetry/span.ts';
import { endMcpServerSpan, startMcpServerSpan } from './mcp-span.ts';
import { isTracedFailure } from '../dispatch/tool-span.ts';

export interface McpRequestContext {
  runtime: TenantRuntime;
  principal: Principal;
  env: Readonly<Record<string, string | undefined>>;
  threadHeader?: string;
  defer?: (work: Promise<unknown>) => void;
  /** Shared by every tools/call of the HTTP request (a JSON-RPC batch may hold many); made when missing. */
  patternBudget?: PatternBudget;
  /** Told the scopes a tools/call needed when the caller lacked one (the route may answer 403 insufficient_scope). */
  onMissingScope?: (required: string[]) => void;
  /** The HTTP request's span (tracing on): MCP server spans are its children unless a call names its own parent in `_meta`. */
  span?: Span;
  /** The request's MCP-Protocol-Version header, for the spans. */
  protocolVersion?: string;
}

/**
 * One stateless MCP server per request (the official SDK's Server over its Web-standard
 * Streamable HTTP transport, JSON responses, no session): `tools/list` shows the tenant's
 * active manifest and profile, `tools/call` goes through the same pipeline as /v1/dispatch.
 * The interpreted JSON Schema validator is used so nothing needs eval on Workers.
 */
export function createMcpServer(context: McpRequestContext): Server {
  const { runtime, principal } = context;
  const patternBudget = context.patternBudget ?? requestPatternBudget();
  const validationBudget = new ValidationBudget();
  const server = new Server(
    { name: 'toolgate', version: runtime.manifest.version, title: `toolgate: ${runtime.manifest.tenant}` },
    { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), instructions: runtime.manifest.description },
  );
  const tracer = runtime.deps.tracer;
  const { protocolVersion } = context;
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => {
    const span = tracer ? startMcpServerSpan(tracer, { method: 'tools/list', requestId: extra.requestId, meta: request.params?._meta, protocolVersion }, context.span) : undefined;
    const tools = toMcpTools(runtime.registry.definitions());
    span?.end();
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta: meta } = request.params;
    const span = tracer ? startMcpServerSpan(tracer, { method: 'tools/call', tool: name, requestId: extra.requestId, meta, protocolVersion }, context.span) : undefined;
    const identity = await mcpCallIdentity({ principal: principal.principal, threadHeader: context.threadHeader, meta, tool: name, args });
    const caller: CallerContext = {
      tenant: principal.tenant,
      principal: principal.principal,
      scopes: new Set(principal.scopes),
      thread_id: identity.thread_id,
      env: context.env,
      manifest_version: runtime.manifest.version,
      defer: context.defer,
      patternBudget,
      validationBudget,
      trace: span?.context,
    };
    const result = await dispatchCall(runtime.deps, caller, { call_id: identity.call_id, name, arguments: args ?? {} });
    if (span) endMcpServerSpan(span, isTracedFailure(result), result.status === 'unknown_tool');
    const required = result.status === 'forbidden' ? result.error?.details?.required_scopes : undefined;
    if (Array.isArray(required)) context.onMissingScope?.(required.map(String));
    return toCallToolResult(result);
  });
  return server;
}

/** Answers one HTTP request of the Streamable HTTP transport (POST; GET/DELETE are 405 without sessions). */
export async function handleMcpRequest(request: Request, context: McpRequestContext, parsedBody: unknown): Promise<Response> {
  const server = createMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
