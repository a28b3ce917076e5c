import type { MiddlewareHandler } from 'hono';
import { errorResponse } from './errors.ts';
import { originProblem, type OriginPolicy } from './origin-policy.ts';

/**
 * 403 for a request whose Host or Origin the policy refuses, before its key or body is read.
 * `policy` is read per request: `toolgate serve` on port 0 learns its port only once listening.
 */
export function originGuard(policy: () => OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    // The scheme only matters with an Origin (is it the gateway's own?): most calls send none, and parsing the URL costs each.
    const problem = originProblem(policy(), { host: c.req.header('host'), origin, scheme: origin === undefined ? undefined : new URL(c.req.url).protocol });
    if (problem) return errorResponse(c, 403, 'forbidden_origin', problem);
    await next();
  };
}
