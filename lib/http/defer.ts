import type { Context } from 'hono';

/**
 * Work to finish after the response: Workers keep the isolate alive for it (waitUntil); where
 * there is no execution context (Node, Deno, Lambda) the caller awaits it inline instead.
 */
export function deferFor(c: Context): ((work: Promise<unknown>) => void) | undefined {
  const context = executionContextOf(c);
  if (!context || typeof context.waitUntil !== 'function') return undefined;
  // The spans the work ends (a call run once Slack's approval is acknowledged) leave with it: the
  // request's own export went out with the response, and the next request may never come.
  const exportSpans = c.get(DEFERRED_SPANS) as (() => Promise<void> | undefined) | undefined;
  return (work) => context.waitUntil(work.catch(() => {}).then(() => exportSpans?.()));
}

/** The context variable through which tracing (tracing.ts) exports what deferred work ended. */
export const DEFERRED_SPANS = 'exportDeferredSpans';

/**
 * Hono's `executionCtx` throws where the runtime gave none, which is every request on Node, Deno
 * and Lambda. Capturing that error's stack trace was a measurable share of a dispatch's CPU on
 * Node, so it is thrown without one (V8's Error.stackTraceLimit; elsewhere the assignment is inert).
 */
function executionContextOf(c: Context): { waitUntil(work: Promise<unknown>): void } | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
