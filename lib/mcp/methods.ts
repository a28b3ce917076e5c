import type { ConnectionCaller } from '../connections/connection-access.ts';
import { dispatchCall } from '../dispatch/pipeline.ts';
import type { ToolResult } from '../dispatch/call.ts';
import type { CallerContext } from '../dispatch/context.ts';
import type { CallRelay } from '../registry/executor.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Principal } from '../governance/api-keys.ts';
import { requestPatternBudget, type PatternBudget } from '../patterns/index.ts';
import { ValidationBudget } from '../validation/work-budget.ts';
import { toMcpTools } from '../registry/formats/mcp.ts';
import { DEFAULT_TOOLS_PAGE_SIZE, mcpListedTools, toolsPage } from './tools-page.ts';
import { answerToolCall } from './call-answer.ts';
import { mcpCallIdentity, type McpCallIdentity } from './call-identity.ts';
import { canPark, tasksOffered } from './parking.ts';
import type { TaskVocabulary } from './tasks/task-views.ts';
import type { Span } from '../telemetry/span.ts';
import type { ResumableStream } from './stream-resumption.ts';
import type { McpSession } from './session.ts';
import { endMcpServerSpan, startMcpServerSpan } from './mcp-span.ts';
import { isTracedFailure } from '../dispatch/tool-span.ts';

export interface McpRequestContext {
  runtime: TenantRuntime;
  principal: Principal;
  env: Readonly<Record<string, string | undefined>>;
  threadHeader?: string;
  /** The request's Idempotency-Key header (already checked for size): with the JSON-RPC id, a call id. */
  idempotencyHeader?: string;
  defer?: (work: Promise<unknown>) => void;
  /** Shared by every tools/call of the HTTP request (a JSON-RPC batch may hold many); made when missing. */
  patternBudget?: PatternBudget;
  /** Told the scopes a tools/call needed when the caller lacked one (the route may answer 403 insufficient_scope). */
  onMissingScope?: (required: string[]) => void;
  /** The HTTP request's span (tracing on): MCP server spans are its children unless a call names its own parent in `_meta`. */
  span?: Span;
  /** The request's MCP-Protocol-Version header, for the spans. */
  protocolVersion?: string;
  /**
   * Where browsers reach this gateway's console (its public origin): a call waiting for its
   * caller's confirmation links its confirm page there. Asked only then (it may parse the request's URL).
   */
  consoleOrigin?: () => string | undefined;
  /**
   * How much longer this isolate serves the tenant's active manifest without reading its pointer
   * again (ms): modern list results tell clients to cache them for that long, so a client lists
   * again no later than the gateway would serve a newly activated version. Unknown: 0.
   */
  manifestFreshMs?: number;
  /** Where the caller reached the gateway and its sign-in token, for tools acting as the user (lib/connections). */
  connect?: ConnectionCaller;
  /**
   * Whether an upstream's requests of the client may wait for this client's answer (lib/mcp/relay):
   * the runtime delivers a response while the request still runs, and keeps running after it.
   */
  replyChannel?: boolean;
  /**
   * A legacy request's session (its `Mcp-Session-Id`, session.ts): the revision its `initialize`
   * agreed (which outranks the request's MCP-Protocol-Version header) and the client capabilities
   * declared there. None on 2026-07-28 requests (sessionless) and on legacy ones sent without it.
   */
  session?: McpSession;
}

/** What one HTTP request's MCP methods share: its budgets (a JSON-RPC batch spends them together). */
export interface McpRequestScope {
  context: McpRequestContext;
  patternBudget: PatternBudget;
  validationBudget: ValidationBudget;
  /** When the answer is an event stream: where a call's upstream notifications go (call-relay.ts). */
  relay?: (params: McpToolCall) => CallRelay;
  /** When the answer is a resumable event stream: primed once its call runs (stream-resumption.ts). */
  resumable?: ResumableStream;
}

export function mcpRequestScope(context: McpRequestContext): McpRequestScope {
  return { context, patternBudget: context.patternBudget ?? requestPatternBudget(), validationBudget: new ValidationBudget() };
}

/**
 * `tools/list`: the tenant's active manifest and profile as MCP tools (those the caller may call, or
 * the always_loaded ones among them and search_tools: tools-page.ts), a page at a time from `cursor`.
 */
export function listMcpTools(scope: McpRequestScope, requestId: string | number, meta: Record<string, unknown> | undefined, cursor?: unknown) {
  const { context } = scope;
  const { runtime, principal } = context;
  const tracer = runtime.deps.tracer;
  const span = tracer ? startMcpServerSpan(tracer, { method: 'tools/list', requestId, meta, protocolVersion: context.protocolVersion }, context.span) : undefined;
  try {
    const listed = mcpListedTools(runtime.manifest, runtime.registry, new Set(principal.scopes));
    const { page, nextCursor } = toolsPage(listed, cursor, runtime.manifest.tool_search?.page_size ?? DEFAULT_TOOLS_PAGE_SIZE);
    const tools = withTaskSupport(runtime, toMcpTools(page));
    return nextCursor === undefined ? { tools } : { tools, nextCursor };
  } finally {
    span?.end();
  }
}

/**
 * 2025-11-25 clients call a tool as a task only where its `execution.taskSupport` allows it:
 * tools whose calls can wait for approval may be (a 2026-07-28 result drops the field).
 */
function withTaskSupport<T extends { name: string }>(runtime: McpRequestContext['runtime'], tools: T[]): T[] {
  if (!tasksOffered(runtime)) return tools;
  return tools.map((tool) => (canPark(runtime, tool.name) && !('execution' in tool) ? { ...tool, execution: { taskSupport: 'optional' } } : tool));
}

/** What a `tools/call` names: the tool, its arguments (an object, when given) and the request's `_meta`. */
export interface McpToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  /** The client's own key for this call (retries with it replay the result instead of running again). */
  idempotencyKey?: string;
}

/**
 * `tools/call`: through the same pipeline as /v1/dispatch. `asked` is the task vocabulary the
 * client can take a task in, when it can (call-answer.ts).
 */
export async function callMcpTool(scope: McpRequestScope, requestId: string | number, params: McpToolCall, asked?: TaskVocabulary) {
  const identity = await mcpToolIdentity(scope, requestId, params);
  const result = await dispatchMcpTool(scope, requestId, params, identity);
  return answerToolCall(scope.context.runtime.deps, scope.context.principal, identity, result, asked);
}

/** The arguments a call names, as the tool gets them (an object, when given). */
export const mcpToolArguments = (params: McpToolCall) => (params.arguments === undefined ? undefined : withoutProtoKey(params.arguments));

/** The thread and call id a `tools/call` runs under (call-identity.ts). */
export function mcpToolIdentity(scope: McpRequestScope, requestId: string | number, params: McpToolCall): Promise<McpCallIdentity> {
  const { runtime, principal, threadHeader, idempotencyHeader } = scope.context;
  return mcpCallIdentity({
    tenant: principal.tenant,
    principal: principal.principal,
    tool: params.name,
    args: mcpToolArguments(params),
    meta: params._meta,
    idempotencyKey: params.idempotencyKey,
    threadHeader,
    idempotencyHeader,
    requestId,
    canPark: canPark(runtime, params.name),
    store: runtime.deps.store,
  });
}

/** Runs a `tools/call` under `identity` through the pipeline; its result, whatever happened. */
export async function dispatchMcpTool(scope: McpRequestScope, requestId: string | number, params: McpToolCall, identity: McpCallIdentity): Promise<ToolResult> {
  const { context } = scope;
  const { runtime, principal } = context;
  const { name, _meta: meta } = params;
  const args = mcpToolArguments(params);
  const tracer = runtime.deps.tracer;
  const span = tracer ? startMcpServerSpan(tracer, { method: 'tools/call', tool: name, requestId, meta, protocolVersion: context.protocolVersion }, context.span) : undefined;
  const caller = mcpCaller(scope, identity.thread_id, span);
  if (scope.relay) caller.relay = scope.relay(params);
  if (scope.resumable) caller.onRun = scope.resumable.runHook(identity);
  const result = await dispatchCall(runtime.deps, caller, { call_id: identity.call_id, name, arguments: args ?? {} });
  if (span) endMcpServerSpan(span, isTracedFailure(result), result.status === 'unknown_tool');
  reportMissingScope(context, result);
  return result;
}

/** Who calls, for the pipeline: the request's principal, in `thread_id`, with the request's budgets, under `span`. */
export function mcpCaller(scope: McpRequestScope, thread_id: string, span: Span | undefined): CallerContext {
  const { context } = scope;
  const { principal } = context;
  return {
    tenant: principal.tenant,
    principal: principal.principal,
    ...(principal.lineage ? { lineage: principal.lineage } : {}),
    ...(principal.claims ? { claims: principal.claims } : {}),
    scopes: new Set(principal.scopes),
    thread_id,
    env: context.env,
    manifest_version: context.runtime.manifest.version,
    defer: context.defer,
    patternBudget: scope.patternBudget,
    validationBudget: scope.validationBudget,
    trace: span?.context,
    ...(context.connect ? { connect: context.connect } : {}),
    tool_format: 'mcp',
  };
}

/** A call refused for a scope tells the route which scopes it needed (a token may be widened: 403 insufficient_scope). */
export function reportMissingScope(context: McpRequestContext, result: ToolResult): void {
  const required = result.status === 'forbidden' ? result.error?.details?.required_scopes : undefined;
  if (Array.isArray(required)) context.onMissingScope?.(required.map(String));
}

/**
 * JSON.parse makes `__proto__` an ordinary own key; the official SDKs' parsers drop it from the
 * arguments, so toolgate does too: the tool gets, and the call id hashes, the same arguments on
 * every path.
 */
export function withoutProtoKey(args: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(args, '__proto__')) return args;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (key !== '__proto__') copy[key] = args[key];
  return copy;
}
