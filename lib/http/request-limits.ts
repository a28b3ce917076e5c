import type { MiddlewareHandler } from 'hono';
import { describeLimit, refusalDetails, retryAfterSeconds } from '../limits/messages.ts';
import type { GatewayEnv } from './env.ts';

/**
 * The tenant's request limits (`limits[]` with `counts: "requests"`): each POST to a dispatch
 * endpoint, and each GET resuming an MCP event stream (it waits on the store, like a call),
 * counts once per tenant or principal, before its body is read. Over the limit: 429 with
 * Retry-After, and nothing in the request runs. A store that cannot count answers 503.
 */
export function requestLimits(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const limiter = c.get('runtime').deps.limiter;
    if (!counted(c.req.method, c.req.header('last-event-id')) || !limiter?.countsRequests) return next();
    const principal = c.get('principal');
    let verdict;
    try {
      verdict = await limiter.takeForRequest({ tenant: principal.tenant, principal: principal.principal });
    } catch (error) {
      return c.json({ error: { code: 'unavailable', message: `the request limits cannot be checked (${(error as Error).message}); retry later` } }, 503);
    }
    if (verdict.ok) return next();
    const details = refusalDetails(verdict, Date.now());
    c.header('Retry-After', String(retryAfterSeconds(verdict)));
    const why = verdict.limit.description ? ` (${verdict.limit.description})` : '';
    const message = `too many requests: this tenant allows ${describeLimit(verdict.limit)}${why}; retry after ${String(details.retry_at)}`;
    return c.json({ error: { code: 'rate_limited', message, details } }, 429);
  };
}

/** A POST, or a GET with Last-Event-ID (a resumed MCP stream); a GET without it is refused unread. */
const counted = (method: string, lastEventId: string | undefined) => method === 'POST' || (method === 'GET' && lastEventId !== undefined);
