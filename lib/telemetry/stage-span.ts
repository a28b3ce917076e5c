import { SpanKind, type Attributes, type Span } from './span.ts';
import type { Tracer } from './tracer.ts';

/** What the pipeline's stages need to time themselves: the tracer and the call's span (absent when tracing is off). */
export interface CallSpan {
  tracer: Tracer;
  span: Span;
}

/**
 * Runs one stage of a call inside a child span `toolgate.{stage}`; without a call span (tracing
 * off) it is just the stage. The child is handed to `run` for what the stage sends on (an
 * executor's traceparent). A stage that throws marks its span and rethrows.
 */
export function inStageSpan<T>(call: CallSpan | undefined, stage: string, run: (span?: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
  // Tracing off: the stage itself, with no promise of its own around it.
  return call ? inChildSpan(call, stage, run, attributes) : run();
}

async function inChildSpan<T>(call: CallSpan, stage: string, run: (span?: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
  const span = call.tracer.startChild(call.span, `toolgate.${stage}`, SpanKind.INTERNAL, attributes);
  try {
    return await run(span);
  } catch (error) {
    span.setError('exception');
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A long-poll for a call's outcome (GET /v1/calls/:id?wait=): `toolgate.approval.wait`, a child of
 * the request's span, ended with the status the caller was answered.
 */
export function startWaitSpan(tracer: Tracer | undefined, request: Span | undefined, callId: string, waitSeconds: number): Span | undefined {
  if (!tracer || !request || waitSeconds <= 0) return undefined;
  return tracer.startChild(request, 'toolgate.approval.wait', SpanKind.INTERNAL, { 'gen_ai.tool.call.id': callId, 'toolgate.wait.seconds': waitSeconds });
}
