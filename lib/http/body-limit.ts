import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse } from './errors.ts';

/**
 * 413 above `maxSize` bytes. A request that declares its Content-Length is judged on it alone
 * (the common case, and the cheap one: Hono's streaming check re-wraps every request body);
 * one without (chunked) goes through Hono's bodyLimit, which counts the bytes as they arrive.
 */
export function requestBodyLimit(maxSize: number): MiddlewareHandler {
  const tooLarge = (c: Parameters<MiddlewareHandler>[0]) => errorResponse(c, 413, 'payload_too_large', `request body is larger than ${maxSize} bytes`);
  const streaming = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return streaming(c, next);
    if (!/^\d+$/.test(declared)) return errorResponse(c, 400, 'invalid_request', 'Content-Length must be a number of bytes');
    if (Number(declared) > maxSize) return tooLarge(c);
    await next();
  };
}
