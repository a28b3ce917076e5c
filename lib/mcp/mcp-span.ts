import { bounded, nameTarget, SpanKind, type Span } from '../telemetry/span.ts';
import { parseTraceparent } from '../telemetry/trace-context.ts';
import type { Tracer } from '../telemetry/tracer.ts';

export interface McpSpanRequest {
  method: string;
  /** The tool a tools/call names (the span name's target). */
  tool?: string;
  requestId?: string | number;
  /** The request's `params._meta`, where MCP clients may carry a traceparent. */
  meta?: Record<string, unknown>;
  /** The MCP-Protocol-Version header, when it looks like one. */
  protocolVersion?: string;
}

const PROTOCOL_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An MCP server span (the MCP semantic conventions: `{mcp.method.name} {target}`, kind SERVER).
 * Its parent is the traceparent in `params._meta` when the client sent a well-formed one (then
 * linked to the HTTP request's span), else the HTTP request's span.
 */
export function startMcpServerSpan(tracer: Tracer, request: McpSpanRequest, httpSpan: Span | undefined): Span {
  const meta = request.meta;
  const fromMeta = parseTraceparent(typeof meta?.traceparent === 'string' ? meta.traceparent : undefined, typeof meta?.tracestate === 'string' ? meta.tracestate : undefined);
  const { method, tool, requestId, protocolVersion } = request;
  return tracer.startSpan(tool ? nameTarget(method, tool) : method, {
    kind: SpanKind.SERVER,
    parent: fromMeta ?? httpSpan?.context,
    links: fromMeta && httpSpan ? [{ traceId: httpSpan.context.traceId, spanId: httpSpan.context.spanId }] : [],
    attributes: {
      'mcp.method.name': method,
      ...(requestId !== undefined && requestId !== null ? { 'jsonrpc.request.id': bounded(String(requestId)) } : {}),
      ...(tool ? { 'gen_ai.tool.name': bounded(tool), 'gen_ai.operation.name': 'execute_tool' } : {}),
      ...(protocolVersion && PROTOCOL_VERSION.test(protocolVersion) ? { 'mcp.protocol.version': protocolVersion } : {}),
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    },
  });
}

/** A tools/call whose result is an error: `error.type` "tool_error" (the convention's value for isError), status ERROR. */
export function endMcpServerSpan(span: Span, failed: boolean, unknownTool = false): void {
  // As execute_tool's: a tool name no manifest has is not a span name (unbounded names in the collector).
  if (unknownTool) span.name = 'tools/call';
  if (failed) span.setAttribute('error.type', 'tool_error').setError('tool_error');
  span.end();
}
