import type { Context } from 'hono';

/**
 * Work to finish after the response: Workers keep the isolate alive for it (waitUntil); where
 * there is no execution context (Node, Deno, Lambda) the caller awaits it inline instead.
 */
export function deferFor(c: Context): ((work: Promise<unknown>) => void) | undefined {
  let context: { waitUntil(work: Promise<unknown>): void } | undefined;
  try {
    context = c.executionCtx;
  } catch {
    return undefined;
  }
  return context && typeof context.waitUntil === 'function' ? (work) => context.waitUntil(work.catch(() => {})) : undefined;
}
