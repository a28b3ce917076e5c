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
export async function inStageSpan<T>(call: CallSpan | undefined, stage: string, run: (span?: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!call) return run();
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
