import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse } from './errors.ts';
import { manifestTooLarge } from './manifest-body.ts';

const tooLarge = (c: Context, maxSize: number) => errorResponse(c, 413, 'payload_too_large', `request body is larger than ${maxSize} bytes`);

/**
 * Judges a request that declares its Content-Length on it alone: 413 above `maxSize`, 400 for a
 * length that is not a number; `undeclared` handles one without (chunked).
 */
function declaredLengthLimit(maxSize: number, refuse: (c: Context) => Response, undeclared: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return undeclared(c, next);
    if (!/^\d+$/.test(declared)) return errorResponse(c, 400, 'invalid_request', 'Content-Length must be a number of bytes');
    if (Number(declared) > maxSize) return refuse(c);
    await next();
  };
}

/**
 * 413 above `maxSize` bytes. A request that declares its Content-Length is judged on it alone
 * (the common case, and the cheap one: Hono's streaming check re-wraps every request body);
 * one without (chunked) goes through Hono's bodyLimit, which counts the bytes as they arrive.
 */
export function requestBodyLimit(maxSize: number): MiddlewareHandler {
  const refuse = (c: Context) => tooLarge(c, maxSize);
  return declaredLengthLimit(maxSize, refuse, bodyLimit({ maxSize, onError: refuse }));
}

/**
 * The body limits of /v1: manifest publishing has its own, larger one (a catalog of thousands of
 * tools is megabytes). Only a declared length is judged here; a chunked manifest is counted as the
 * route reads it, after the caller is authenticated (manifest-body.ts), so no one unauthenticated
 * makes the gateway hold megabytes.
 */
export function apiBodyLimits(maxSize: number, manifestMaxSize: number): MiddlewareHandler {
  const general = requestBodyLimit(maxSize);
  const manifests = declaredLengthLimit(manifestMaxSize, (c) => manifestTooLarge(c, `the manifest as sent is larger than ${manifestMaxSize} bytes`), async (_c, next) => next());
  return (c, next) => (c.req.method === 'POST' && c.req.path === MANIFEST_PUBLISH_PATH ? manifests(c, next) : general(c, next));
}

export const MANIFEST_PUBLISH_PATH = '/v1/admin/manifests';
