import { maskSensitive } from '../audit/redact.ts';
import type { ToolCall, ToolResult } from './call.ts';
import type { CallerContext } from './context.ts';
import type { CallTrace } from './trace.ts';
import { ClientToolExecutor } from '../registry/executors/client.ts';
import type { ToolExecutor } from '../registry/executor.ts';
import { bounded, epochMs, nameTarget, SpanKind, type Span } from '../telemetry/span.ts';
import type { Tracer } from '../telemetry/tracer.ts';
import type { SpanContext } from '../telemetry/trace-context.ts';
import type { Approval } from '../governance/approval.ts';

/**
 * The GenAI semantic conventions' `execute_tool {gen_ai.tool.name}` span, one per call
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span), with
 * toolgate's own facts as `toolgate.*` attributes. Never a secret: no key, no token, no header;
 * arguments and results only when the operator opts in, arguments masked as audit masks them.
 */
export function startToolSpan(tracer: Tracer, call: Pick<ToolCall, 'call_id' | 'name'>, caller: Pick<CallerContext, 'tenant' | 'principal' | 'thread_id' | 'manifest_version' | 'trace'>): Span {
  return tracer.startSpan(nameTarget('execute_tool', call.name), {
    kind: SpanKind.INTERNAL,
    parent: caller.trace,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': bounded(call.name),
      'gen_ai.tool.call.id': bounded(call.call_id),
      'toolgate.tenant': caller.tenant,
      'toolgate.principal': caller.principal,
      'toolgate.thread.id': caller.thread_id,
      ...(caller.manifest_version ? { 'toolgate.manifest.version': caller.manifest_version } : {}),
    },
  });
}

/**
 * The `execute_tool` span of a parked call that a human's decision runs: a child of the deciding
 * request's span (API, console or Slack), since the agent's request that parked it has ended;
 * `toolgate.approval.id` ties the two traces together (the parking span carries the call id).
 */
export function startApprovedToolSpan(tracer: Tracer, approval: Approval, parent: SpanContext | undefined): Span {
  const span = startToolSpan(tracer, { call_id: approval.call_id, name: approval.tool }, { tenant: approval.tenant, principal: approval.requested_by, thread_id: approval.thread_id, manifest_version: approval.manifest_version, trace: parent });
  span.setAttribute('toolgate.approval.id', bounded(approval.id));
  return span;
}

/**
 * The convention's tool types, for toolgate's executors: a `client` tool runs in the agent's
 * own client (`function`: the client executes what the model asked for); every other executor
 * (http endpoint, upstream MCP server, exec-server coding tools, tools registered in code) is
 * run by the gateway on the agent's behalf against a system outside the model (`extension`).
 * No executor kind is a data store as such, so `datastore` is not used.
 */
export function toolTypeOf(executor: ToolExecutor): 'function' | 'extension' {
  return executor instanceof ClientToolExecutor ? 'function' : 'extension';
}

/** Outcomes that are not failures: the call waits for a human, or for its other attempt to finish. */
const WAITING = new Set(['pending_approval', 'in_progress']);

/** Whether a result is a failure for tracing (error.type, status ERROR): any error but waiting for approval or another attempt. */
export const isTracedFailure = (result: Pick<ToolResult, 'is_error' | 'status'>) => result.is_error && !WAITING.has(result.status);
/** Spans carry content up to this many characters (an attribute, not a transcript). */
const MAX_CONTENT_CHARS = 8192;

const capped = (text: string) => (text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text);

/**
 * Ends the call's span with its outcome: `error.type` (toolgate's error code) and status ERROR
 * when it failed; the status message is the code too, never the error text (it may quote input).
 */
export async function endToolSpan(tracer: Tracer, span: Span, trace: CallTrace): Promise<void> {
  const endedAt = epochMs();
  const { result } = trace;
  // A name no manifest has stays an attribute: in the span name every junk name a model makes up would be a new span name.
  if (result.status === 'unknown_tool') span.name = 'execute_tool';
  span.setAttribute('toolgate.status', result.status);
  span.setAttribute('toolgate.decision', trace.decision.decision);
  if (trace.definition) span.setAttribute('toolgate.tool.tier', trace.definition.tier);
  if (result.replayed) span.setAttribute('toolgate.replayed', true);
  if (isTracedFailure(result)) {
    const code = result.error?.code ?? result.status;
    span.setAttribute('error.type', code);
    span.setError(code);
  }
  if (tracer.captureContent && span.recording) await addContent(span, trace, result);
  span.end(endedAt);
}

/** The opt-in content: arguments with the schema's `x-sensitive` fields masked (as in audit), the result the model got when the call succeeded. */
async function addContent(span: Span, trace: CallTrace, result: ToolResult): Promise<void> {
  // Arguments are shown only once a tool's schema is known: without it nothing says which fields are sensitive.
  if (trace.args && trace.definition) {
    try {
      span.setAttribute('gen_ai.tool.call.arguments', capped(JSON.stringify(await maskSensitive(trace.args, trace.definition.input_schema))));
    } catch {
      // Content is a courtesy: a value that cannot be masked is left out.
    }
  }
  if (!result.is_error) span.setAttribute('gen_ai.tool.call.result', capped(result.content));
}
